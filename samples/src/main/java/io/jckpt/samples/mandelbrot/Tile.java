package io.jckpt.samples.mandelbrot;

/**
 * One computed tile of the {@link Mosaic}: its number, the rank that computed it (for the statistics
 * only: it depends on scheduling and is not part of the checksum) and its escape counts.
 *
 * @param id     tile number
 * @param rank   the rank that computed it
 * @param counts escape counts, row-major within the tile
 */
public record Tile(int id, int rank, int[] counts) {
}
