package io.jckpt.samples.mandelbrot;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The Mandelbrot set rendered as an image of escape counts, cut into square tiles: the kernel shared
 * by the tiler and its sequential reference. A pixel's count depends only on its coordinates (plain
 * double arithmetic, the same bits on every JVM), so the image does not depend on which rank computed
 * which tile, nor in which order.
 *
 * <p>The image covers [-2.2, 0.8] x [-1.25, 1.25] of the complex plane, sampled at pixel centres. Tiles
 * are numbered row-major over the tile grid; tiles at the right and bottom edges may be smaller.
 */
public final class MandelbrotProblem {
    private static final double RE_MIN = -2.2;
    private static final double RE_MAX = 0.8;
    private static final double IM_MIN = -1.25;
    private static final double IM_MAX = 1.25;

    private final int width;
    private final int height;
    private final int tileSize;
    private final int maxIterations;

    /** A tile's pixel rectangle. */
    public record Bounds(int x0, int y0, int width, int height) {
        public int pixels() {
            return width * height;
        }
    }

    public MandelbrotProblem(int width, int height, int tileSize, int maxIterations) {
        if (width < 1 || height < 1 || tileSize < 1 || maxIterations < 1) {
            throw new IllegalArgumentException("width, height, tile size and iterations must be positive, got "
                    + width + ", " + height + ", " + tileSize + ", " + maxIterations);
        }
        if ((long) width * height > Integer.MAX_VALUE / 4 || (long) tileSize * tileSize > 1 << 24) {
            throw new IllegalArgumentException("image " + width + " x " + height + " or tile " + tileSize
                    + " is too large");
        }
        this.width = width;
        this.height = height;
        this.tileSize = tileSize;
        this.maxIterations = maxIterations;
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    public int tileSize() {
        return tileSize;
    }

    public int maxIterations() {
        return maxIterations;
    }

    public int tilesAcross() {
        return (width + tileSize - 1) / tileSize;
    }

    public int tilesDown() {
        return (height + tileSize - 1) / tileSize;
    }

    public int tileCount() {
        return tilesAcross() * tilesDown();
    }

    /** The pixels of tile {@code id}. */
    public Bounds bounds(int id) {
        if (id < 0 || id >= tileCount()) {
            throw new IllegalArgumentException("no tile " + id + " (there are " + tileCount() + ")");
        }
        int x0 = (id % tilesAcross()) * tileSize;
        int y0 = (id / tilesAcross()) * tileSize;
        return new Bounds(x0, y0, Math.min(tileSize, width - x0), Math.min(tileSize, height - y0));
    }

    /** The escape count of pixel (px, py): iterations of z = z^2 + c until |z| > 2, at most maxIterations. */
    public int escape(int px, int py) {
        double cr = RE_MIN + (px + 0.5) * (RE_MAX - RE_MIN) / width;
        double ci = IM_MAX - (py + 0.5) * (IM_MAX - IM_MIN) / height;
        double zr = 0.0;
        double zi = 0.0;
        int n = 0;
        while (n < maxIterations) {
            double zr2 = zr * zr;
            double zi2 = zi * zi;
            if (zr2 + zi2 > 4.0) {
                break;
            }
            zi = 2.0 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            n++;
        }
        return n;
    }

    /** The counts of tile {@code id}, row-major within the tile. */
    public int[] computeTile(int id) {
        Bounds b = bounds(id);
        int[] counts = new int[b.pixels()];
        for (int y = 0; y < b.height(); y++) {
            for (int x = 0; x < b.width(); x++) {
                counts[y * b.width() + x] = escape(b.x0() + x, b.y0() + y);
            }
        }
        return counts;
    }

    /** Copies tile {@code id}'s counts into the whole image (row-major, width x height). */
    public void place(int id, int[] counts, int[] image) {
        Bounds b = bounds(id);
        if (counts.length != b.pixels()) {
            throw new IllegalArgumentException("tile " + id + " has " + b.pixels() + " pixels, got " + counts.length);
        }
        for (int y = 0; y < b.height(); y++) {
            System.arraycopy(counts, y * b.width(), image, (b.y0() + y) * width + b.x0(), b.width());
        }
    }

    /** The sequential reference: the whole image, pixel by pixel. */
    public int[] renderSequentially() {
        int[] image = new int[width * height];
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                image[y * width + x] = escape(x, y);
            }
        }
        return image;
    }

    /** The checksum printed by the tiler: CRC32C of the image's counts (big-endian ints), row-major. */
    public static long checksum(int[] image) {
        CRC32C crc = new CRC32C();
        ByteBuffer bytes = ByteBuffer.allocate(16 * 1024);
        for (int v : image) {
            if (!bytes.hasRemaining()) {
                bytes.flip();
                crc.update(bytes);
                bytes.clear();
            }
            bytes.putInt(v);
        }
        bytes.flip();
        crc.update(bytes);
        return crc.getValue();
    }
}
