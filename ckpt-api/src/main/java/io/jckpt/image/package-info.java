/**
 * The checkpoint image: one layout ({@link io.jckpt.image.CheckpointImageDescriptor}) used in memory, on
 * the wire and on disk; written by {@link io.jckpt.image.ImageWriter}, read by
 * {@link io.jckpt.image.ImageReader} after its MAC ({@link io.jckpt.image.ImageMac}, with the job's
 * {@link io.jckpt.image.ImageKey}) verified and a structural check of its header. The stores' CRC32C
 * (per slot, frame and rank file) find damage cheaply; the MAC refuses whatever this job did not write.
 */
package io.jckpt.image;
