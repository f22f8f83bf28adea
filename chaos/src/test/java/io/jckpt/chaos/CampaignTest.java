package io.jckpt.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The short form of the fault campaign ({@code bin/chaos --quick}'s small runs, one of every scenario in
 * the seed's order: real launchers and rank JVMs, failures injected from outside at random moments): no
 * wrong result, stall, unexpected failure, orphan process or leftover store. One run per scenario rather
 * than {@code --quick}'s 30 keeps the test command within its 20 minutes on 2 cores (about 3 minutes here);
 * tagged {@code slow} and {@code chaos} ({@code -Djckpt.test.excludedGroups=chaos} skips it).
 */
@Tag("slow")
@Tag("chaos")
class CampaignTest {
    @Test
    void theShortCampaignHasNoWrongResultStallUnexpectedFailureOrphanOrLeftover() throws Exception {
        Path out = Paths.get("target", "chaos-quick").toAbsolutePath();
        int status = Campaign.run(new String[] {"--quick", "--runs", Integer.toString(Scenario.parseList(null).size()),
                "--seed", "1", "--out", out.toString()});
        Path report = out.resolve("report.md");
        String text = Files.exists(report) ? Files.readString(report) : "(no report: the reference run failed, see "
                + out.resolve("runs") + ")";
        assertEquals(0, status, text);
        assertTrue(text.contains("Verdict: **pass**"), text);
    }
}
