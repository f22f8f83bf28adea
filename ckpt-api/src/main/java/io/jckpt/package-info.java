/**
 * The public API of jckpt: the static {@link io.jckpt.Ckpt} facade (the paper's MPI_Ckpt_* calls), the
 * {@link io.jckpt.Checkpointer} instance interface behind it, {@link io.jckpt.CkptOptions} and
 * {@link io.jckpt.CtrlOptions}, {@link io.jckpt.CkptStats}, and the exception hierarchy rooted at
 * {@link io.jckpt.CkptException}. The implementation is found through {@link io.jckpt.spi}.
 */
package io.jckpt;
