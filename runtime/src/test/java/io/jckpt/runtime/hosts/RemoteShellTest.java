package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The remote shell's command line, run through a real shell by the stand-in agent {@code fake-rsh}
 * (what ssh does on the far side): words with spaces, quotes and $ arrive intact, plain variables are
 * set, the secret arrives through standard input and is on no command line.
 */
class RemoteShellTest {
    static Path fakeRsh() {
        return Path.of(System.getProperty("jckpt.repo.root", ".")).resolve("runtime/src/test/resources/hosts/fake-rsh");
    }

    @Test
    void wordsEnvironmentAndSecretArriveIntactAndTheSecretIsOnNoCommandLine() throws Exception {
        RemoteShell shell = new RemoteShell(List.of(fakeRsh().toString()));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("JCKPT_RANK", "3");
        env.put("ODD", "a 'quoted' $HOME value");
        String secret = "0123456789abcdef-the-secret";
        List<String> command = shell.command("node7", env, List.of("JCKPT_JOB_SECRET"),
                List.of("sh", "-c", "printf '%s|%s|%s|%s|%s\\n' \"$FAKE_RSH_HOST\" \"$JCKPT_RANK\" \"$ODD\" \"$JCKPT_JOB_SECRET\" \"$1\"",
                        "arg0", "it's $1 \"x\""));
        assertFalse(String.join(" ", command).contains(secret), "the secret is not on the command line");
        Process p = new ProcessBuilder(command).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(RemoteShell.stdinSecrets(List.of(secret)).getBytes(StandardCharsets.UTF_8));
        }
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals("node7|3|a 'quoted' $HOME value|" + secret + "|it's $1 \"x\"", out);
    }

    @Test
    void anAgentThatExecutesItsWordsGetsShCAndTellsTheCommandsZeroFromItsOwn() throws Exception {
        // env stands in for srun: it executes the words after it, as srun does on the node
        RemoteShell shell = new RemoteShell(List.of("env", "FAKE_HOST={host}"), true);
        String secret = "the-secret-" + System.nanoTime();
        for (int code : List.of(0, 3)) {
            List<String> line = shell.commandReportingExit("node2", Map.of("JCKPT_RANK", "1"), List.of("JCKPT_JOB_SECRET"),
                    List.of("sh", "-c", "echo \"$FAKE_HOST $JCKPT_RANK $JCKPT_JOB_SECRET\"; exit " + code));
            assertEquals(List.of("env", "FAKE_HOST=node2", "sh", "-c"), line.subList(0, 4));
            assertFalse(String.join(" ", line).contains(secret), "the secret is not on the command line");
            Process p = new ProcessBuilder(line).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(RemoteShell.stdinSecrets(List.of(secret)).getBytes(StandardCharsets.UTF_8));
            }
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
            assertEquals("node2 1 " + secret, new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
            assertEquals(code == 0 ? RemoteShell.REMOTE_EXIT_OK : code, p.exitValue());
            assertEquals(code, shell.localExit(p.exitValue()));
        }
        // srun's own 0 (its node failed: no status of the command) is a lost session, as ssh's 255
        assertEquals(255, shell.localExit(0));
        assertEquals(137, shell.localExit(137));
        assertEquals(List.of("srun", "--overlap", "--nodes=1", "--ntasks=1", "--quiet", "--quiet", "--nodelist=node3", "sh", "-c"),
                RemoteShell.SRUN.command("node3", Map.of(), List.of(), List.of("true")).subList(0, 9));
        // ssh's statuses are the command's own
        assertEquals(0, RemoteShell.SSH.localExit(0));
        assertEquals(RemoteShell.SSH.command("h", Map.of(), List.of(), List.of("true")),
                RemoteShell.SSH.commandReportingExit("h", Map.of(), List.of(), List.of("true")));
    }

    @Test
    void theAgentTakesTheHostAtItsPlaceholderOrAtTheEnd() throws Exception {
        assertEquals(List.of("ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "h1"),
                RemoteShell.SSH.command("h1", Map.of(), List.of(), List.of("true")).subList(0, 6));
        RemoteShell nsenter = RemoteShell.parse("nsenter --target {host} -m -p -- sh -c");
        List<String> line = nsenter.command("4242", Map.of(), List.of(), List.of("true"));
        assertEquals(List.of("nsenter", "--target", "4242", "-m", "-p", "--", "sh", "-c"), line.subList(0, 8));
        assertEquals(List.of("ssh", "-F", "/tmp/my config"), RemoteShell.parse("ssh -F '/tmp/my config'").agent());
        UsageException empty = assertThrows(UsageException.class, () -> RemoteShell.parse("  "));
        assertTrue(empty.getMessage().contains("--rsh needs a command"), empty.getMessage());
        assertThrows(UsageException.class, () -> RemoteShell.parse("ssh -F 'x"));
    }
}
