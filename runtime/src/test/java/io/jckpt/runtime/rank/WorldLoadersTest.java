package io.jckpt.runtime.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import io.jckpt.runtime.programs.StaticState;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loaders of successive MPJ worlds: a prepared (preloaded) loader defines the classes the
 * previous world used, runs none of their static initialisers, and is handed out once.
 */
class WorldLoadersTest {
    private static final List<String> CLASS_PATH = List.of(LaunchedJob.testClasses().toString());
    // the platform loader as parent: the test classes must come from the world loaders, as a program's do
    private static final ClassLoader PARENT = ClassLoader.getPlatformClassLoader();

    @Test
    void preparedLoaderHoldsThePreviousWorldsClassesUninitialised() throws Exception {
        System.clearProperty(StaticState.PROPERTY);
        WorldLoaders loaders = new WorldLoaders(CLASS_PATH, PARENT, 0);
        WorldClassLoader first = loaders.take(0);
        Class<?> used = Class.forName(StaticState.class.getName(), true, first);
        used.getMethod("started").invoke(null);
        assertEquals("1", System.getProperty(StaticState.PROPERTY));
        assertEquals(List.of(StaticState.class.getName()), first.definedClasses());

        loaders.prepareNext(first, 1, 0);
        WorldClassLoader next = awaitFilled(loaders, first.definedClasses().size());
        assertNotSame(first, next);
        assertEquals(first.definedClasses(), next.definedClasses(), "defined ahead of time");
        assertEquals("1", System.getProperty(StaticState.PROPERTY), "no static initialiser ran while preloading");
        Class<?> again = Class.forName(StaticState.class.getName(), true, next);
        assertNotSame(used, again, "a fresh class: fresh static state");
        again.getMethod("started").invoke(null);
        assertEquals("2", System.getProperty(StaticState.PROPERTY));

        assertNotSame(next, loaders.take(2), "a prepared loader is handed out once");
        loaders.stop();
    }

    @Test
    void adoptedLoaderServesTheFirstWorld() {
        WorldLoaders loaders = new WorldLoaders(CLASS_PATH, PARENT, 0);
        WorldClassLoader warm = loaders.fresh("mpj-world-next");
        assertEquals(1, WorldLoaders.preload(warm, List.of(StaticState.class.getName(), "no.such.Type"), () -> false));
        loaders.adopt(warm);
        assertSame(warm, loaders.take(1));
    }

    /** Takes the spare once the preloader defined {@code count} classes in it (bounded). */
    private static WorldClassLoader awaitFilled(WorldLoaders loaders, int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        WorldClassLoader spare = loaders.peekSpare();
        while (spare.definedClasses().size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(spare.definedClasses().size() >= count, "preloaded in time");
        assertSame(spare, loaders.take(1));
        return spare;
    }
}
