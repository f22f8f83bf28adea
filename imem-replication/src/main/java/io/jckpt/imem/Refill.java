package io.jckpt.imem;

/**
 * A copy of the restored round that a holder lacks, sent to it during the rollback so that every
 * rank's data is again held by its m successors before the job goes on. A failure at a random moment
 * interrupts the replication in flight everywhere (every agent closes its connections), and a rank
 * re-spawned on another node holds none of its predecessors' copies: without refills, a second
 * failure before the next round is replicated finds no round every rank can restore.
 *
 * @param owner  the rank whose data it is
 * @param holder the rank that stores it (at ring distance 1..m after the owner)
 * @param source the rank that sends it: the owner when it restores locally, else the rank it receives from
 * @param length the image length
 * @param crc32c the image CRC32C
 */
public record Refill(int owner, int holder, int source, long length, int crc32c) {
}
