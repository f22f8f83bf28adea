package io.jckpt.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading an events file for the report page: a running job's cut line, a broken line, the lost work's span. */
class JobReportTest {
    private static final String EVENTS = String.join("\n",
            "{\"v\":1,\"t\":0.1,\"type\":\"start\",\"job\":\"j1\",\"ranks\":2,\"main\":\"M\",\"device\":\"niodev\","
                    + "\"on_failure\":\"respawn\"}",
            "{\"v\":1,\"t\":1.0,\"type\":\"ranks_running\",\"epoch\":0,\"pids\":[1,2]}",
            "{\"v\":1,\"t\":2.0,\"type\":\"checkpoint\",\"rank\":0,\"round\":2,\"bytes\":100,\"here_ms\":1.5}",
            "{\"v\":1,\"t\":4.0,\"type\":\"checkpoint\",\"rank\":0,\"round\":6,\"bytes\":100,\"here_ms\":2.5}",
            "{\"v\":1,\"t\":5.0,\"type\":\"injection\",\"spec\":\"1@round=6\",\"ranks\":[1],\"wipe\":false,\"round\":6}",
            "{\"v\":1,\"t\":5.5,\"type\":\"failure\",\"ranks\":[1],\"epoch\":0,\"reason\":\"rank 1 <killed>\"}",
            "{\"v\":1,\"t\":5.6,\"type\":\"recovery_start\",\"epoch\":1,\"failed\":[1]}",
            "{\"v\":1,\"t\":6.5,\"type\":\"recovered\",\"epoch\":1,\"world_ms\":1000.0}",
            "{\"v\":1,\"t\":7.0,\"type\":\"rollback\",\"rank\":1,\"round\":4,\"source\":\"memory\",\"how\":\"receive\"}",
            "{\"v\":1,\"t\":7.1,\"type\":\"rollback\",\"rank\":0,\"round\":4,\"source\":\"memory\",\"how\":\"local\"}",
            "{\"v\":1,\"t\":9.0,\"type\":\"end\",\"status\":\"completed\",\"exit\":0,\"recoveries\":1}");

    @Test
    void aLastLineCutShortIsLeftOutAndAnyOtherBrokenLineIsNamed(@TempDir Path tmp) throws IOException {
        Path running = tmp.resolve("running.jsonl");
        Files.writeString(running, EVENTS + "\n{\"v\":1,\"t\":9.5,\"ty");
        assertEquals(11, JobReport.read(running).size());
        Path broken = tmp.resolve("broken.jsonl");
        Files.writeString(broken, EVENTS.replace("\"type\":\"ranks_running\"", "\"type\":"));
        IOException e = assertThrows(IOException.class, () -> JobReport.write(broken, tmp.resolve("r.html")));
        assertTrue(e.getMessage().contains("line 2 is not JSON"), e.getMessage());
    }

    @Test
    void theLostWorkSpansFromTheRestoredRoundsTimeToTheKill(@TempDir Path tmp) throws IOException {
        Path events = tmp.resolve("events.jsonl");
        Files.writeString(events, EVENTS + "\n");
        Path page = tmp.resolve("report.html");
        JobReport.write(events, page);
        String html = Files.readString(page);
        // round 4 lies half way between the reports of rounds 2 (2.0 s) and 6 (4.0 s): 3.0 s, to the kill at 5.0 s
        assertTrue(html.contains("from round 4 (3.000 s) to the failure (5.000 s, round 6)"), html);
        assertTrue(html.contains("rank 1 &lt;killed&gt;"), "text is escaped");
        assertTrue(html.contains("id=\"lane-1\"") && !html.contains("id=\"lane-2\""), "one lane per rank");
        assertTrue(html.contains("id=\"summary-missing\""), "no summary event is said");
    }

    @Test
    void theLaunchersRecoveryEventGivesTheRecoveriesRowItsFigures(@TempDir Path tmp) throws IOException {
        Path events = tmp.resolve("events.jsonl");
        // the launcher's own account: the round's time it knew (2.75 s: 2.25 s redone), and the program's step
        Files.writeString(events, EVENTS.replace("\n{\"v\":1,\"t\":9.0,\"type\":\"end\"", "\n{\"v\":1,\"t\":7.1,"
                + "\"type\":\"recovery\",\"number\":1,\"epoch\":1,\"cause\":\"rank 1\",\"failed_s\":5.0,"
                + "\"detected_s\":5.5,\"world_s\":6.5,\"computing_s\":7.1,\"round\":4,\"step\":40,"
                + "\"source\":\"memory\",\"redone_s\":2.25}\n{\"v\":1,\"t\":9.0,\"type\":\"end\"") + "\n");
        Path page = tmp.resolve("report.html");
        JobReport.write(events, page);
        String html = Files.readString(page);
        String row = html.substring(html.indexOf("<tr data-epoch=\"1\">"));
        row = row.substring(0, row.indexOf("</tr>"));
        // killed 5.000, detected 5.500 (500 ms), new world 1000 ms, rollbacks 600 ms, restored round 4, 2.250 s redone
        assertTrue(row.contains(">5.000<") && row.contains(">5.500<") && row.contains(">500<") && row.contains(">600<")
                && row.contains("4 (memory, step 40)") && row.contains(">2.250<"), row);
        assertTrue(html.contains("from round 4 (2.750 s) to the failure (5.000 s, round 6)"), "the shading too");
    }
}
