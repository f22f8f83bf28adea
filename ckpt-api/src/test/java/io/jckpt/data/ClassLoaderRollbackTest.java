package io.jckpt.data;

import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import io.jckpt.image.ImageWriter;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The item 1, reproduced deterministically: a program's classes live in a class loader below
 * the library's (the launcher runs each MPJ world's program in a fresh world class loader), and with
 * {@code kryoRegistrationRequired(false)} Kryo writes their names. Before the fix every rollback failed
 * with "Unable to find class" (Kryo resolved names through its own loader). Here the "program" is
 * {@code io.jckpt.world.WorldState} (test resources {@code world-program/}), compiled by the test into a
 * directory that is not on the class path and loaded by a URLClassLoader over it, so the library's
 * loader cannot see it, exactly as in a launched rank.
 */
class ClassLoaderRollbackTest {
    private static final String STATE = "io.jckpt.world.WorldState";
    @TempDir
    static Path classes;
    private final BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 16);

    @BeforeAll
    static void compileTheProgram() throws Exception {
        Path sources = classes.resolve("src/io/jckpt/world");
        Files.createDirectories(sources);
        for (String name : new String[] {"WorldState.java", "WorldItem.java"}) {
            try (InputStream in = ClassLoaderRollbackTest.class.getResourceAsStream("/world-program/io/jckpt/world/" + name)) {
                assertNotNull(in, name);
                Files.write(sources.resolve(name), in.readAllBytes());
            }
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK");
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-d", classes.resolve("bin").toString(),
                sources.resolve("WorldState.java").toString(), sources.resolve("WorldItem.java").toString());
        assertEquals(0, status, errors::toString);
        assertThrows(ClassNotFoundException.class, () -> Class.forName(STATE),
                "the program's classes must not be visible to the library's loader");
    }

    @AfterEach
    void release() {
        store.releaseLast();
    }

    /** A world's class loader over the compiled program, the library's loader as parent (as the launcher's). */
    private static URLClassLoader world() throws Exception {
        return new URLClassLoader("world", new URL[] {classes.resolve("bin").toUri().toURL()},
                ClassLoaderRollbackTest.class.getClassLoader());
    }

    private static Object newState(ClassLoader world, int n) throws Exception {
        return Class.forName(STATE, true, world).getMethod("create", int.class).invoke(null, n);
    }

    private static String describe(Object state) throws Exception {
        return (String) state.getClass().getMethod("describe").invoke(state);
    }

    private static void bump(Object state) throws Exception {
        state.getClass().getMethod("bump").invoke(state);
    }

    @SuppressWarnings("unchecked")
    private static java.util.List<Class<?>> held(Object state) throws Exception {
        return (java.util.List<Class<?>>) state.getClass().getMethod("heldClasses").invoke(state);
    }

    private ImageReader checkpoint(TagRegistry reg) {
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(1, 4, 3, 0));
        ImageSeals.seal(store, 0);
        return ImageSeals.open(store, 0);
    }

    @Test
    void programClassesOfAnotherLoaderRestoreWithoutRegistration() throws Exception {
        try (URLClassLoader world = world()) {
            // the library's own loader as context loader: the object's loader alone must be enough
            DataAdapters adapters = DataAdapters.builder().rank(1).kryoRegistrationRequired(false).build();
            TagRegistry reg = new TagRegistry(adapters);
            Object state = newState(world, 3);
            String saved = describe(state);
            reg.register("state", state);
            ImageReader image = checkpoint(reg);
            bump(state);
            bump(state);
            assertNotEquals(saved, describe(state));

            assertSame(state, image.restore("state", state, adapters));
            assertEquals(saved, describe(state), "restored in place, the items' owner is the registered object");
            for (Class<?> c : held(state)) {
                assertSame(world, c.getClassLoader(), c.getName());
            }
        }
    }

    @Test
    void aNewWorldResolvesTheSavedNamesToItsOwnClasses() throws Exception {
        ImageReader image;
        String saved;
        try (URLClassLoader first = world()) {
            DataAdapters adapters = DataAdapters.builder().rank(1).kryoRegistrationRequired(false).build();
            TagRegistry reg = new TagRegistry(adapters);
            Object state = newState(first, 4);
            saved = describe(state);
            reg.register("state", state);
            image = checkpoint(reg);
        }
        // the recovered world: a new loader, set as the context loader of the thread that opens the
        // checkpointer (as RankMain does), and a new checkpointer (one per world)
        try (URLClassLoader second = world()) {
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            DataAdapters adapters;
            thread.setContextClassLoader(second);
            try {
                adapters = DataAdapters.builder().rank(1).kryoRegistrationRequired(false).build();
            } finally {
                thread.setContextClassLoader(before);
            }
            Class<?> type = Class.forName(STATE, false, second);
            Object fresh = image.restoreObject("state", type, adapters);
            assertSame(type, fresh.getClass());
            assertEquals(saved, describe(fresh));
            for (Class<?> c : held(fresh)) {
                assertSame(second, c.getClassLoader(), c.getName());
            }
            // and into an object of the new world, through a checkpointer made without the context loader
            DataAdapters plain = DataAdapters.builder().rank(1).kryoRegistrationRequired(false).build();
            Object target = newState(second, 1);
            assertSame(target, image.restore("state", target, plain));
            assertEquals(saved, describe(target));
        }
    }
}
