package io.jckpt.samples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.TestHosts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job, at a small size: it recovers, says OK, sums up its events and points to its report page;
 * the same across three test hosts ({@code --hosts 3}, skipped with the reason when test hosts cannot be made).
 */
class DemoTest {
    @TempDir
    Path out;

    @Test
    void demoRecoversAndMatchesTheReferenceAndPointsToTheReportPage() throws Exception {
        Path root = LaunchedJob.repoRoot();
        Process demo = new ProcessBuilder(root.resolve("bin/demo").toString(), "--nx", "96", "--ny", "64",
                "--iterations", "400", "--ckpt-every", "10", "--out", out.toString())
                .redirectErrorStream(true).directory(root.toFile()).start();
        demo.getOutputStream().close();
        byte[] output = demo.getInputStream().readAllBytes(); // ends when the demo ends
        assertTrue(demo.waitFor(120, TimeUnit.SECONDS));
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, demo.exitValue(), text);
        assertTrue(text.contains("demo: OK, the checksum after the failure and recovery equals the failure-free reference"),
                text);
        // one line per recovery, not a line per rank
        assertTrue(text.matches("(?s).*recovery 1: rank 2 \\(pid \\d+\\) killed by the injected failure .*; restored round"
                + " \\d+ \\(step \\d+\\) from memory; redone: .*"), text);
        assertFalse(text.contains("rank 2: restored round"), text);
        // m is the job's setting, given to the launcher: the program sets none (a builder call would win, and rank 0
        // would print its own settings line naming it)
        assertTrue(text.contains("checkpoint settings (the program's own builder calls win): replicas=1 (--replicas),"
                + " disk=none (default), diskRatio=1000 (default)"), text);
        assertFalse(text.contains("rank 0: checkpoint settings"), "the same settings, said once: " + text);
        assertTrue(text.contains("| launcher exit status | 0 |"), text);
        Path events = out.resolve("demo-job/events.jsonl");
        Path page = out.resolve("demo-job/report.html").toAbsolutePath();
        assertTrue(text.contains("report page (timeline, summary, here() times): " + page.toUri()), text);
        assertTrue(Files.readString(events).contains("\"type\":\"summary\""), "the job's events file");
        // the summary table comes from the events: the injection, the rollback with its source, the end
        assertTrue(text.matches("(?s).*\\| failure injected at [0-9.]+ s \\| 2@round=\\d+:wipe: ranks \\[2\\].*"), text);
        assertTrue(text.matches("(?s).*\\| rollback done at [0-9.]+ s \\| rank 2 restored round \\d+ from memory "
                + "\\(receive\\) \\|.*"), text);
        assertTrue(text.contains("| job end at ") && text.contains("completed, 1 recoveries |"), text);
        String html = Files.readString(page);
        assertTrue(html.startsWith("<!DOCTYPE html>") && html.contains("id=\"lane-3\"") && html.contains("class=\"failure\""),
                "the report page draws the four ranks and the failure");
    }

    @Test
    void acrossThreeTestHostsAWholeHostIsLostAndEverythingIsRemoved() throws Exception {
        TestHosts.assumeAvailable();
        Path root = LaunchedJob.repoRoot();
        Process demo = new ProcessBuilder(root.resolve("bin/demo").toString(), "--hosts", "3", "--nx", "96", "--ny", "64",
                "--iterations", "400", "--ckpt-every", "10", "--out", out.toString())
                .redirectErrorStream(true).directory(root.toFile()).start();
        demo.getOutputStream().close();
        byte[] output = demo.getInputStream().readAllBytes(); // ends when the demo ends
        assertTrue(demo.waitFor(180, TimeUnit.SECONDS));
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, demo.exitValue(), text);
        // h3 runs ranks 2 and 5 (3 slots a host, by node); both restart on the other hosts from their copies
        Matcher lost = Pattern.compile("demo: host h3 \\((127\\.0\\.0\\.\\d+)\\) lost at round \\d+").matcher(text);
        assertTrue(lost.find(), text);
        String address = lost.group(1);
        assertTrue(text.contains("demo: OK, host " + address + " was lost whole and the checksum after the recovery equals"
                + " the failure-free reference"), text);
        assertTrue(text.matches("(?s).*\\| host lost at [0-9.]+ s \\| host " + Pattern.quote(address) + " \\|.*"), text);
        for (int rank : new int[] {2, 5}) {
            assertTrue(text.matches("(?s).*\\| rank moved at [0-9.]+ s \\| rank " + rank + ": host " + Pattern.quote(address)
                    + " (lost|does not answer), restarts on 127\\.0\\.0\\.\\d+ \\(free slot\\) \\|.*"), text);
            assertTrue(text.matches("(?s).*\\| rollback done at [0-9.]+ s \\| rank " + rank + " restored round \\d+ from memory "
                    + "\\(receive\\) \\|.*"), text);
        }
        assertTrue(text.contains("| launcher exit status | 0 |"), text);
        Path page = out.resolve("demo-hosts-job/report.html").toAbsolutePath();
        assertTrue(text.contains("report page (timeline, summary, here() times): " + page.toUri()), text);
        assertTrue(Files.readString(page).contains("id=\"lane-5\""), "the report page draws the six ranks");
        // nothing left: the job's processes, the hosts' run directory and lock (bin/demo execs the demo's JVM)
        assertTrue(text.contains("demo: test hosts removed"), text);
        Matcher job = Pattern.compile("job ([0-9a-f]{12}):").matcher(text);
        assertTrue(job.find(), text);
        assertEquals(List.of(), LaunchedJob.processesLeft(job.group(1), 10_000));
        try (Stream<Path> runs = Files.list(Path.of("/tmp/jckpt-test-hosts"))) {
            String prefix = "jckpt_th_" + demo.pid() + "_";
            assertEquals(List.of(), runs.filter(p -> p.getFileName().toString().startsWith(prefix)).toList());
        }
    }

    @Test
    void helpPrintsTheOptionsAndATypoIsOneLine() throws Exception {
        Path root = LaunchedJob.repoRoot();
        String help = run(root, 0, "--help").stdout();
        for (String option : new String[] {"--replicas", "--kill", "--total-loss", "--hosts", "--nx", "--ny", "--iterations",
                "--ckpt-every", "--out", "--help"}) {
            assertTrue(help.contains(option), option + " in\n" + help);
        }
        assertTrue(help.startsWith("Usage: bin/demo [OPTIONS]"), help);
        Ended typo = run(root, 2, "--iteration=8");
        assertEquals("", typo.stdout());
        // the last line: bin/build may have said before that it compiles
        List<String> lines = typo.stderr().lines().toList();
        assertEquals("demo: unknown option --iteration=8 (did you mean --iterations?); see bin/demo --help",
                lines.get(lines.size() - 1));
    }

    /** What bin/demo printed. */
    private record Ended(String stdout, String stderr) {
    }

    /** Runs bin/demo to its end and checks its exit status. */
    private Ended run(Path root, int status, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/demo").toString()));
        command.addAll(List.of(args));
        Path stderr = out.resolve("stderr-" + args[0].replace('/', '_'));
        Process demo = new ProcessBuilder(command).redirectError(stderr.toFile()).directory(root.toFile()).start();
        demo.getOutputStream().close();
        byte[] output = demo.getInputStream().readAllBytes(); // ends when the demo ends
        assertTrue(demo.waitFor(60, TimeUnit.SECONDS));
        Ended ended = new Ended(new String(output, StandardCharsets.UTF_8), Files.readString(stderr));
        assertEquals(status, demo.exitValue(), ended.toString());
        return ended;
    }
}
