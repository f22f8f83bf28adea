package io.jckpt.samples.mandelbrot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import org.objenesis.strategy.StdInstantiatorStrategy;
import org.junit.jupiter.api.Test;

/** The tiler's kernel and the master's state, without processes. */
class MosaicTest {
    // 50 x 37 in tiles of 16: edge tiles of 2 columns and 5 rows
    private final MandelbrotProblem problem = new MandelbrotProblem(50, 37, 16, 200);

    private static Kryo kryo() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(true);
        kryo.setReferences(true);
        // as jckpt's Kryo adapter: Objenesis when a class has no no-arg constructor
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        Mosaic.registerClasses(kryo);
        return kryo;
    }

    private static byte[] serialize(Kryo kryo, Mosaic mosaic) {
        Output output = new Output(1 << 10, -1);
        kryo.writeObject(output, mosaic);
        return output.toBytes();
    }

    private Mosaic complete(boolean preallocate) {
        Mosaic mosaic = new Mosaic(problem, preallocate);
        for (int id = problem.tileCount() - 1; id >= 0; id--) { // any order
            mosaic.add(new Tile(id, 1 + id % 3, problem.computeTile(id)));
        }
        mosaic.endRound(problem.tileCount());
        return mosaic;
    }

    @Test
    void tilesAssembleIntoTheSequentialImage() {
        assertEquals(12, problem.tileCount());
        assertArrayEquals(problem.renderSequentially(), complete(true).assemble(problem));
        assertArrayEquals(problem.renderSequentially(), complete(false).assemble(problem));
    }

    @Test
    void aPreallocatedMosaicKeepsItsSerializedSizeAsTilesArrive() {
        Kryo kryo = kryo();
        int empty = serialize(kryo, new Mosaic(problem, true)).length;
        int full = serialize(kryo, complete(true)).length;
        assertTrue(full <= empty + 64, "grew from " + empty + " to " + full + " bytes");
        assertTrue(full > 4 * 50 * 37, "counts are written fixed-width: " + full + " bytes");
    }

    @Test
    void kryoRestoresTheWholeGraph() {
        Kryo kryo = kryo();
        Mosaic restored = kryo.readObject(new Input(serialize(kryo, complete(true))), Mosaic.class);
        assertTrue(restored.isOf(problem));
        assertEquals(problem.tileCount(), restored.computed());
        assertEquals(1, restored.rounds());
        assertArrayEquals(problem.renderSequentially(), restored.assemble(problem));
        assertArrayEquals(new int[] {0, 4, 4, 4}, restored.tilesPerRank(4));
    }

    @Test
    void aTileComputedTwiceOrARoundWithAGapIsRefused() {
        Mosaic mosaic = new Mosaic(problem, true);
        mosaic.add(new Tile(0, 1, problem.computeTile(0)));
        assertThrows(IllegalStateException.class, () -> mosaic.add(new Tile(0, 2, problem.computeTile(0))));
        assertThrows(IllegalStateException.class, () -> mosaic.endRound(2));
        assertThrows(IllegalStateException.class, () -> mosaic.assemble(problem));
    }
}
