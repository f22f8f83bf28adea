package io.jckpt.imem;

/**
 * What one rank does in a rollback: restore its own data from its local store, or receive it.
 *
 * @param rank   the rank restoring
 * @param kind   LOCAL or RECEIVE
 * @param source the rank that holds the copy used ({@code rank} itself for LOCAL)
 * @param length the expected image length
 * @param crc32c the expected CRC32C of the image
 */
public record RestoreAction(int rank, Kind kind, int source, long length, int crc32c) {
    /** How a rank gets its data back. */
    public enum Kind {
        /** From its own node-local store, without communication. */
        LOCAL,
        /** From the store of rank {@code source} over the data channel. */
        RECEIVE
    }
}
