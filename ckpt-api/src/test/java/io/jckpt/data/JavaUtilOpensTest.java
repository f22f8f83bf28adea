package io.jckpt.data;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A program run with plain {@code java}, without the flag bin/ckpt-run gives rank JVMs, gets an error at
 * {@code register} naming the exact flag, the tag and the path; with that flag the same program restores
 * its Random in place (issue 28 item 2). Two JVMs of the test's class path, about a second each.
 */
class JavaUtilOpensTest {
    private static final String FLAG = "--add-opens=java.base/java.util=ALL-UNNAMED";

    private static String run(boolean withFlag) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports") || a.startsWith("--enable-native-access")
                    || a.startsWith("--sun-misc") || a.startsWith("-Dchronicle")) {
                if (!a.equals(FLAG)) {
                    command.add(a); // what Chronicle needs, not the codec's flag
                }
            }
        }
        if (withFlag) {
            command.add(FLAG);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(OpensProbe.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe JVM did not end");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    @Test
    void withoutTheFlagRegisterNamesItAndWithItTheRandomIsRestoredInPlace() throws Exception {
        String without = run(false);
        assertTrue(without.contains("refused: tag 'state' on rank 0: cannot save state.rng: a java.util.Random"), without);
        assertTrue(without.contains("needs the JVM flag " + FLAG), without);
        assertTrue(without.contains("bin/ckpt-run gives it to the ranks it starts"), without);
        String with = run(true);
        assertTrue(with.contains("restored: next true map 1"), with);
    }
}
