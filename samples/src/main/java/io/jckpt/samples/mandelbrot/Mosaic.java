package io.jckpt.samples.mandelbrot;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.TreeMap;

/**
 * The master's state: the tiles, by number, and how far the rounds have got. This object graph (a
 * {@link TreeMap} of {@link Tile} records holding arrays) is what the master registers; it is
 * checkpointed through Kryo and restored as a new object on rollback.
 *
 * <p>Invariant at every checkpoint (taken between rounds, when no tile is out): the tiles computed are
 * exactly {@code 0 .. nextTile-1}.
 *
 * <p><b>Pre-allocation.</b> jckpt sizes a rank's checkpoint slot at its first here() (1.25 x the
 * largest image then) and grows it collectively when an image outgrows it, which costs a store switch
 * (the previous round replicated everywhere, new slot files, a new ring) each time. A mosaic created
 * with {@code preallocate} holds an entry for every tile from the start, {@link #PENDING} with zero
 * counts, and its int arrays are written fixed-width ({@link #registerClasses}), so its serialized size
 * hardly changes as tiles arrive and no switch is needed. Without it the image grows tile by tile and
 * the slots grow with it.
 */
public final class Mosaic {
    /** The rank of a tile not computed yet. */
    public static final int PENDING = -1;

    private final int width;
    private final int height;
    private final int tileSize;
    private final int maxIterations;
    private final TreeMap<Integer, Tile> tiles = new TreeMap<>();
    private int computed;
    private int nextTile;
    private int rounds;

    public Mosaic(MandelbrotProblem problem, boolean preallocate) {
        this.width = problem.width();
        this.height = problem.height();
        this.tileSize = problem.tileSize();
        this.maxIterations = problem.maxIterations();
        if (preallocate) {
            for (int id = 0; id < problem.tileCount(); id++) {
                tiles.put(id, new Tile(id, PENDING, new int[problem.bounds(id).pixels()]));
            }
        }
    }

    /**
     * Registers the classes of this graph with the checkpointer's Kryo, in a fixed order; int arrays
     * are written fixed-width (4 bytes an element), so their size does not depend on their values.
     */
    public static void registerClasses(Kryo kryo) {
        kryo.register(Mosaic.class);
        kryo.register(Tile.class);
        kryo.register(TreeMap.class);
        kryo.register(int[].class, new FixedWidthIntArraySerializer());
    }

    /** Whether this mosaic belongs to {@code problem} (a restored one must: the options could have changed). */
    public boolean isOf(MandelbrotProblem problem) {
        return width == problem.width() && height == problem.height() && tileSize == problem.tileSize()
                && maxIterations == problem.maxIterations();
    }

    /** Adds a computed tile. */
    public void add(Tile tile) {
        if (tile.rank() == PENDING) {
            throw new IllegalArgumentException("tile " + tile.id() + " is not computed");
        }
        Tile old = tiles.put(tile.id(), tile);
        if (old != null && old.rank() != PENDING) {
            throw new IllegalStateException("tile " + tile.id() + " computed twice (by ranks " + old.rank() + " and "
                    + tile.rank() + ")");
        }
        computed++;
    }

    /** Ends a round: every tile below {@code end} is computed. */
    public void endRound(int end) {
        for (int id = nextTile; id < end; id++) {
            Tile tile = tiles.get(id);
            if (tile == null || tile.rank() == PENDING) {
                throw new IllegalStateException("round ending at tile " + end + " lacks tile " + id);
            }
        }
        nextTile = end;
        rounds++;
    }

    public int nextTile() {
        return nextTile;
    }

    public int rounds() {
        return rounds;
    }

    /** @return how many tiles are computed */
    public int computed() {
        return computed;
    }

    /** The whole image; every tile must be computed. */
    public int[] assemble(MandelbrotProblem problem) {
        if (computed != problem.tileCount()) {
            throw new IllegalStateException("mosaic holds " + computed + " of " + problem.tileCount() + " tiles");
        }
        int[] image = new int[problem.width() * problem.height()];
        for (Tile tile : tiles.values()) {
            problem.place(tile.id(), tile.counts(), image);
        }
        return image;
    }

    /** How many of the computed tiles each rank computed. */
    public int[] tilesPerRank(int size) {
        int[] count = new int[size];
        for (Tile tile : tiles.values()) {
            if (tile.rank() >= 0 && tile.rank() < size) {
                count[tile.rank()]++;
            }
        }
        return count;
    }

    /** int[] as its length and then 4 bytes an element: the serialized size depends on the length only. */
    static final class FixedWidthIntArraySerializer extends Serializer<int[]> {
        @Override
        public void write(Kryo kryo, Output output, int[] array) {
            output.writeInt(array.length);
            output.writeInts(array, 0, array.length);
        }

        @Override
        public int[] read(Kryo kryo, Input input, Class<? extends int[]> type) {
            return input.readInts(input.readInt());
        }
    }
}
