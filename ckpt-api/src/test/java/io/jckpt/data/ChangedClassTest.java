package io.jckpt.data;

import io.jckpt.DataMismatchException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A program recompiled with a changed class meets a checkpoint of the old one (a disk generation read by
 * the new build): rollback names the class and both field lists, and leaves every object unchanged,
 * also the ones the graph reaches before the changed class. The two versions are compiled by the test
 * into two directories, each loaded by a class loader of its own.
 */
class ChangedClassTest {
    @TempDir
    static Path dir;

    private static void compile(String version, String cellFields) throws Exception {
        Path src = dir.resolve(version).resolve("src/app");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Cell.java"), "package app;\npublic class Cell { " + cellFields + " }");
        Files.writeString(src.resolve("Grid.java"), "package app;\nimport java.util.*;\n"
                + "public class Grid { public final double[] values = {1, 2, 3}; public final List<Cell> cells = new ArrayList<>();"
                + " public long step = 1; }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-d", dir.resolve(version).resolve("bin").toString(),
                src.resolve("Cell.java").toString(), src.resolve("Grid.java").toString());
        assertEquals(0, status, errors::toString);
    }

    @BeforeAll
    static void compileBothVersions() throws Exception {
        compile("v1", "public double mass = 1; public int id = 7;");
        compile("v2", "public double mass = 1; public long id = 7; public double charge;");
    }

    private static URLClassLoader loader(String version) throws Exception {
        return new URLClassLoader(version, new URL[] {dir.resolve(version).resolve("bin").toUri().toURL()},
                ChangedClassTest.class.getClassLoader());
    }

    @SuppressWarnings("unchecked")
    private static Object grid(ClassLoader loader) throws Exception {
        Object grid = loader.loadClass("app.Grid").getConstructor().newInstance();
        ((List<Object>) grid.getClass().getField("cells").get(grid)).add(loader.loadClass("app.Cell").getConstructor().newInstance());
        return grid;
    }

    @Test
    void aChangedClassIsAMismatchNamingBothLayoutsAndNothingIsRestored() throws Exception {
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 14);
        try (URLClassLoader v1 = loader("v1"); URLClassLoader v2 = loader("v2")) {
            DataAdapters before = DataAdapters.builder().rank(2).build();
            TagRegistry reg = new TagRegistry(before);
            reg.register("grid", grid(v1));
            ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(2, 4, 1, 0));
            ImageSeals.seal(store, 0);
            ImageReader image = ImageSeals.open(store, 0);

            DataAdapters after = DataAdapters.builder().rank(2).build(); // the recompiled program's checkpointer
            Object target = grid(v2);
            double[] values = (double[]) target.getClass().getField("values").get(target);
            values[0] = 9;
            target.getClass().getField("step").setLong(target, 5);
            DataMismatchException e = assertThrows(DataMismatchException.class, () -> image.restore("grid", target, after));
            String m = e.getMessage();
            assertTrue(m.contains("rollback of tag 'grid' on rank 2: saved a app.Cell with fields [mass:D, id:I] at grid.cells[0]"), m);
            assertTrue(m.contains("a app.Cell with fields [mass:D, id:J, charge:D] (the class changed since the checkpoint)"), m);
            assertTrue(m.contains("nothing was restored"), m);
            assertEquals(9, values[0], "the array the graph reaches first is unchanged");
            assertEquals(5, target.getClass().getField("step").getLong(target));
        } finally {
            store.releaseLast();
        }
    }
}
