/**
 * The checkpoint image: one layout ({@link io.jckpt.image.CheckpointImageDescriptor}) used in memory, on
 * the wire and on disk; written by {@link io.jckpt.image.ImageWriter}, sealed and verified (CRC32C) by
 * {@link io.jckpt.image.ImageSealer}, read by {@link io.jckpt.image.ImageReader}.
 */
package io.jckpt.image;
