/**
 * The stable-disk level of jckpt: two committed generations per job on stable storage, written
 * crash-safely, verified by CRC32C before use, flushed in the background.
 *
 * <ul>
 *   <li>{@link io.jckpt.disk.GenerationStore}: one rank's writes, the coordinator's commit, inventory,
 *   verified reads, retention.</li>
 *   <li>{@link io.jckpt.disk.DiskFileDescriptor}, {@link io.jckpt.disk.CommitMarkerDescriptor},
 *   {@link io.jckpt.disk.GenerationLayout}: the file formats and the directory layout.</li>
 *   <li>{@link io.jckpt.disk.GenerationSelector}: the pure choice of the round to restore from all
 *   ranks' {@link io.jckpt.wire.RankInventory inventories}.</li>
 *   <li>{@link io.jckpt.disk.DiskFlusher}: the background flush agent with its
 *   {@link io.jckpt.disk.FlushCounters counters} and {@link io.jckpt.disk.OverlapPolicy}.</li>
 * </ul>
 *
 * <p>Decisions: overlapping disk rounds are coalesced into one pending slot by default (or skipped),
 * never waited for; restoring on another world size is refused with a message naming both sizes;
 * committing round N retracts older markers except the newest below N, and ranks delete their
 * retired files asynchronously on their flusher thread. See {@code stable-disk/README.md}.
 */
package io.jckpt.disk;
