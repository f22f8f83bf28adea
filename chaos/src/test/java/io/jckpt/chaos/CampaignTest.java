package io.jckpt.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The short form of the fault campaign ({@code bin/chaos --quick}'s small runs, real launchers and rank
 * JVMs, failures injected from outside at random moments): no wrong result, stall, unexpected failure,
 * orphan process or leftover store. One run of each scenario that no launched test of its own covers;
 * the others have one: kill1, kill2adj, kill2spread, node1, node2adj, node2spread, beyond-m, total,
 * sigstop, flush, killall and recovery in samples' {@code HeatRecoveryTest}, startup-stop in runtime's {@code StartupWindowsTest},
 * grow in {@code GrowthAfterRecoveryTest},
 * corpus in {@code ProbeTableTest}. That keeps the test command within its 20 minutes on 2 cores (about
 * 2 minutes here; every scenario took 5); {@code bin/chaos --quick} runs them all. Tagged {@code slow}
 * and {@code chaos} ({@code -Djckpt.test.excludedGroups=chaos} skips it).
 */
@Tag("slow")
@Tag("chaos")
class CampaignTest {
    @Test
    void theShortCampaignHasNoWrongResultStallUnexpectedFailureOrphanOrLeftover() throws Exception {
        Path out = Paths.get("target", "chaos-quick").toAbsolutePath();
        String scenarios = "startup,flip,launcher,launcher-wipe,diskfull,kryo-unreg";
        int status = Campaign.run(new String[] {"--quick", "--scenarios", scenarios,
                "--runs", Integer.toString(Scenario.parseList(scenarios).size()), "--seed", "1", "--out", out.toString()});
        Path report = out.resolve("report.md");
        String text = Files.exists(report) ? Files.readString(report) : "(no report: the reference run failed, see "
                + out.resolve("runs") + ")";
        assertEquals(0, status, text);
        assertTrue(text.contains("Verdict: **pass**"), text);
    }
}
