package io.jckpt.data;

import io.jckpt.UnsupportedDataException;
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
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A program class in a named module that does not open its package cannot have its private fields set:
 * {@code register} says so and names the {@code opens} to add; the same class in a module that opens its
 * package is restored (issue 28: every "do this instead" done). The modules are compiled by the test.
 */
class ModuleAccessTest {
    @TempDir
    static Path dir;

    private static void compile(String module, String pkg, boolean opens) throws Exception {
        Path src = dir.resolve("src").resolve(module);
        Files.createDirectories(src.resolve(pkg));
        Files.writeString(src.resolve("module-info.java"), "module " + module + " { exports " + pkg + ";"
                + (opens ? " opens " + pkg + ";" : "") + " }");
        Files.writeString(src.resolve(pkg).resolve("Counter.java"), "package " + pkg + ";\n"
                + "public class Counter { private long count; public void add() { count++; } "
                + "public long count() { return count; } }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-d", dir.resolve("mods").resolve(module).toString(),
                src.resolve("module-info.java").toString(), src.resolve(pkg).resolve("Counter.java").toString());
        assertEquals(0, status, errors::toString);
    }

    @BeforeAll
    static void compileTheModules() throws Exception {
        compile("app.shut", "shut", false);
        compile("app.open", "open", true);
    }

    private static Object counter(String module, String pkg) throws Exception {
        ModuleFinder finder = ModuleFinder.of(dir.resolve("mods"));
        Configuration cf = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), Set.of(module));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ModuleAccessTest.class.getClassLoader());
        return layer.findLoader(module).loadClass(pkg + ".Counter").getConstructor().newInstance();
    }

    @Test
    void aModuleThatDoesNotOpenItsPackageIsNamedAndOneThatOpensItWorks() throws Exception {
        TagRegistry reg = new TagRegistry(DataAdapters.builder().rank(1).build());
        Object shut = counter("app.shut", "shut");
        UnsupportedDataException e = assertThrows(UnsupportedDataException.class, () -> reg.register("c", shut));
        assertTrue(e.getMessage().contains("its module does not open package shut to ALL-UNNAMED (add 'opens shut;' to "
                + "its module-info, or run with --add-opens=app.shut/shut=ALL-UNNAMED)"), e.getMessage());

        Object open = counter("app.open", "open");
        open.getClass().getMethod("add").invoke(open);
        reg.register("c", open);
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 12);
        try {
            ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(1, 2, 1, 0));
            ImageSeals.seal(store, 0);
            ImageReader image = ImageSeals.open(store, 0);
            open.getClass().getMethod("add").invoke(open);
            assertSame(open, image.restore("c", open, reg.adapters()));
            assertEquals(1L, open.getClass().getMethod("count").invoke(open));
        } finally {
            store.releaseLast();
        }
    }
}
