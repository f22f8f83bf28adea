package io.jckpt.wire;

/**
 * What one rank reports about one committed generation of the disk level (in its {@link RankInventory}).
 *
 * @param round           the round
 * @param markerWorldSize the world size recorded in the commit marker (0 if the marker is damaged)
 * @param integrity       the state of the rank's own file
 * @param detail          why it is not intact (empty when intact)
 */
public record GenerationStatus(long round, int markerWorldSize, Integrity integrity, String detail) {
    /**
     * @param round           the round
     * @param markerWorldSize world size in the marker
     * @param integrity       integrity
     * @param detail          detail, never null
     */
    public GenerationStatus {
        detail = detail == null ? "" : detail;
    }
}
