package io.jckpt.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report page of a job with 20 failures in 70 s, laid out by headless Chromium: no two labels
 * overlap (their boxes as the browser placed them), the crowded recovery phases keep some labels and
 * leave the rest to the recoveries table, which has every failure's rank, times and recovery times, and
 * the start-up phases are named on the lanes. The events are written here, in the launcher's records
 * (a 3-rank job with 20 {@code --kill}s, its timing scaled from a recorded run): no job is launched.
 */
class ReportPageManyFailuresTest {
    private static final int RANKS = 3;
    private static final int FAILURES = 20;

    @Test
    void twentyFailuresLeaveNoLabelOverTheOtherAndATableWithEveryRecovery(@TempDir Path tmp) throws Exception {
        Chromium browser = Chromium.find();
        Assumptions.assumeTrue(browser != null, Chromium.skipped());
        Path events = tmp.resolve("events.jsonl");
        Files.write(events, events());
        Path page = tmp.resolve("report.html");
        JobReport.write(events, page);
        String html = Files.readString(page);

        Chromium.Laid laid = browser.layOut(tmp, page);
        laid.assertNoLabelsOverlap();
        Chromium.assertNoConsoleError(laid.ran());
        List<Chromium.Box> phaseLabels = laid.boxes().stream().filter(b -> b.cls().contains("phase-label")).toList();
        long bars = Pattern.compile("<g class=\"phase\"").matcher(html).results().count();
        assertEquals(3 * FAILURES, bars, "a detection, recovery and rollbacks bar per failure");
        // crowded: some labels had to go (to the table), and what stays still names recoveries
        assertTrue(phaseLabels.size() >= 10 && phaseLabels.size() < bars, phaseLabels.size() + " of " + bars
                + " phase labels shown: " + phaseLabels);
        assertTrue(phaseLabels.stream().allMatch(b -> b.text().matches("(detection|recovery \\(new world \\d+\\)|rollbacks)"
                + " \\(\\d+ ms\\)|#\\d+( \\d+ ms)?")), "each label names its phase or recovery: " + phaseLabels);
        // the start-up, named on the lanes: on the timeline where a phase is wide enough, every phase on the
        // zoomed lane of the rank that started last
        assertEquals(RANKS, laid.boxes().stream().filter(b -> b.svg().equals("timeline") && b.text().equals("MPI"))
                .count(), "MPI.Init (2.5 s of 70 s: 38 px) named short on every lane: " + laid.boxes());
        for (StartUp.Kind kind : StartUp.Kind.values()) {
            assertEquals(1, laid.boxes().stream().filter(b -> b.svg().equals("startup-zoom")
                    && (b.text().equals(kind.label) || b.text().equals(kind.shortLabel))).count(),
                    kind + " named on the zoomed start-up: " + laid.boxes());
        }
        // the recoveries table: a row per failure with its rank, kill, detection and recovery times
        String dom = laid.ran().stdout();
        for (int k = 1; k <= FAILURES; k++) {
            double kill = killAt(k);
            String row = String.format(Locale.ROOT, "<tr data-epoch=\"%d\"><td class=\"num\">%d</td><td>%d</td>"
                    + "<td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td class=\"num\">%.0f</td>"
                    + "<td class=\"num\">%.1f</td><td class=\"num\">%.0f</td>", k, k, k % RANKS, kill, kill + 0.05, 50.0,
                    worldMs(k), 1200.0);
            assertTrue(dom.contains(row), "recovery " + k + ": " + row + " in\n" + dom);
        }
        assertTrue(dom.contains("<table id=\"startup\""), "the start-up's table");
    }

    /** When the k-th failure's kill comes (seconds): every 3 s from 9.5 s, the last at 66.5 s of 70 s. */
    private static double killAt(int k) {
        return 9.5 + (k - 1) * 3.0;
    }

    /** Detection to new world (ms): 700 to 1500 ms, as recorded on a loaded machine. */
    private static double worldMs(int k) {
        return 700 + (k * 37 % 9) * 100;
    }

    /**
     * The events of a 3-rank job with a disk level: started at 0.5 s, every rank connected at 2.5 s, its
     * world formed at 5 s, the opens from 5.3 s to 7.5 s, a checkpoint round every 100 ms reported every
     * 250 ms, 20 kills, each detected 50 ms later and recovered in {@link #worldMs}, the rollbacks 1.2 s
     * after; the shape of each record as a real job's (docs/events.md).
     */
    private static List<String> events() {
        List<String> out = new ArrayList<>();
        out.add(line(0.5, "start", "\"job\":\"crowded\",\"ranks\":3,\"main\":\"io.jckpt.runtime.programs.CheckpointLoop\","
                + "\"device\":\"niodev\",\"on_failure\":\"respawn\",\"max_recoveries\":30,\"standbys\":0,"
                + "\"detectors\":[\"heartbeat (timeout 3000 ms)\"],\"cores\":2,\"schema\":1"));
        out.add(line(2.5, "ranks_running", "\"epoch\":0,\"pids\":[101,102,103]"));
        out.add(line(5.0, "world_formed", "\"epoch\":0"));
        for (int r = 0; r < RANKS; r++) {
            out.add(line(7.4 + r * 0.05, "rank_open", "\"rank\":" + r + ",\"epoch\":0,\"open_ms\":2100.5"));
        }
        double t = 8.0;
        long round = 0;
        double end = 70;
        int epoch = 0;
        for (int k = 1; k <= FAILURES; k++) {
            double kill = killAt(k);
            for (; t < kill; t += 0.25) {
                round += 2;
                for (int r = 0; r < RANKS; r++) {
                    out.add(line(t + r * 0.01, "checkpoint", "\"rank\":" + r + ",\"round\":" + round
                            + ",\"bytes\":160,\"here_ms\":3.5"));
                }
                if (round % 10 == 0) {
                    out.add(line(t + 0.03, "disk_commit", "\"rank\":0,\"round\":" + round));
                }
            }
            int rank = k % RANKS;
            out.add(line(kill, "injection", "\"spec\":\"" + rank + "@round=" + round + "\",\"ranks\":[" + rank
                    + "],\"wipe\":false,\"round\":" + round));
            out.add(line(kill + 0.05, "failure", "\"ranks\":[" + rank + "],\"epoch\":" + epoch + ",\"reason\":\"rank "
                    + rank + " (pid " + (200 + k) + ") killed by the injected failure " + rank + "@round=" + round + "\""));
            epoch++;
            out.add(line(kill + 0.08, "recovery_start", "\"epoch\":" + epoch + ",\"failed\":[" + rank + "]"));
            double recovered = kill + 0.05 + worldMs(k) / 1000;
            out.add(line(recovered, "recovered", "\"epoch\":" + epoch + ",\"world_ms\":" + worldMs(k)
                    + ",\"respawn_ms\":60.0,\"from_standby\":0"));
            for (int r = 0; r < RANKS; r++) {
                out.add(line(recovered + 1.2 - (RANKS - 1 - r) * 0.01, "rollback", "\"rank\":" + r + ",\"round\":"
                        + round + ",\"source\":\"memory\",\"how\":\"local\""));
            }
            t = recovered + 1.25;
        }
        for (; t < end - 0.5; t += 0.25) {
            round += 2;
            for (int r = 0; r < RANKS; r++) {
                out.add(line(t + r * 0.01, "checkpoint", "\"rank\":" + r + ",\"round\":" + round
                        + ",\"bytes\":160,\"here_ms\":3.5"));
            }
        }
        out.add(line(end, "end", "\"status\":\"completed\",\"exit\":0,\"recoveries\":" + FAILURES));
        return out;
    }

    private static String line(double t, String type, String fields) {
        return String.format(Locale.ROOT, "{\"v\":1,\"t\":%.6f,\"type\":\"%s\",%s}", t, type, fields);
    }
}
