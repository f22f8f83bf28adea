package io.jckpt.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.hosts.TestHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The short form of {@code bin/chaos --hosts}: 2 job hosts and the spares made on this machine, the
 * failure-free reference run, then a rank SIGKILLed and another host lost after it, at a seeded moment.
 * One run: a host lost alone, and a partition that never heals, are the launched tests' own
 * (MultiHostLaunchTest, PartitionLaunchTest); {@code bin/chaos --hosts} runs every scenario. Real launchers, ranks over ssh, addresses enforced. No wrong result, stall, unexpected
 * failure, orphan, or anything of a job left on a host (processes, ssh sessions, stores, agents).
 * Skipped with the reason where test hosts cannot be made (not root, sshd or nft missing); tagged
 * {@code slow} and {@code chaos} like {@link CampaignTest}.
 */
@Tag("slow")
@Tag("chaos")
class CampaignAcrossHostsTest {
    @Test
    void hostFailuresAtSeededMomentsGiveTheFailureFreeResultAndLeaveNothingOnAnyHost() throws Exception {
        TestHosts.assumeAvailable();
        Path out = Paths.get("target", "chaos-hosts").toAbsolutePath();
        int status = Campaign.run(new String[] {"--hosts", "2", "--quick", "--runs", "1", "--iterations", "30",
                "--scenarios", "kill-host", "--seed", "7", "--out", out.toString()});
        Path report = out.resolve("report.md");
        String text = Files.exists(report) ? Files.readString(report) : "(no report: the reference run failed, see "
                + out.resolve("runs") + ")";
        assertEquals(0, status, text);
        assertTrue(text.contains("Verdict: **pass**"), text);
        // every run injected its failure: the moments land inside the runs
        assertTrue(text.contains("| **all** | 1 | "), text);
        assertTrue(text.matches("(?s).*\\| \\*\\*all\\*\\* \\|( \\d+ \\|){9} 0 \\| 0 \\| \\|.*"), "not injected or skipped: " + text);
    }
}
