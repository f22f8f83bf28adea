/**
 * The checkpoint image: one layout ({@link io.jckpt.image.CheckpointImageDescriptor}) used in memory, on
 * the wire and on disk; written by {@link io.jckpt.image.ImageWriter}, read by
 * {@link io.jckpt.image.ImageReader} after a structural check of its header. Integrity is the store's:
 * every slot (memory) and rank file (disk) carries a CRC32C verified before a copy is trusted.
 */
package io.jckpt.image;
