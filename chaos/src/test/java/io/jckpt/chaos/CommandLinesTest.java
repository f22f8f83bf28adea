package io.jckpt.chaos;

import io.jckpt.cli.CommandLines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.chaos.corpus.Corpus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command lines of bin/chaos and of its rank program: both value forms, defaults, typos, --help. */
class CommandLinesTest {
    @Test
    void campaignSettingsFromBothValueFormsAndTheQuickDefaults() {
        Campaign.Settings quick = Campaign.Settings.parse(new String[] {"--quick", "--repo=/tmp/jckpt"});
        assertEquals(30, quick.runs());
        assertEquals(40, quick.iterations());
        assertEquals(2048, quick.elements());
        assertEquals(Path.of("/tmp/jckpt/out/chaos-quick"), quick.out());
        Campaign.Settings s = Campaign.Settings.parse(new String[] {"--runs=5", "--seed", "7", "--scenarios=kill1,node1",
                "--out", "/tmp/o", "--margin=2.5", "--ranks=6"});
        assertEquals(5, s.runs());
        assertEquals(7, s.seed());
        assertEquals(List.of(Scenario.KILL1, Scenario.NODE1), s.scenarios());
        assertEquals(Path.of("/tmp/o"), s.out());
        assertEquals(2.5, s.marginSeconds());
        assertEquals(6, s.ranks());
        assertEquals(500, Campaign.Settings.parse(new String[0]).runs());
        assertEquals(List.of(Corpus.values()), Campaign.Settings.parse(new String[0]).corpus());
        assertEquals(List.of(Corpus.GRAPH, Corpus.TEMPLATE), Campaign.Settings.parse(
                new String[] {"--scenarios=corpus", "--corpus", "graph,template"}).corpus());
    }

    @Test
    void acrossHostsTwoRanksAHostTheHostScenariosAndTheirOwnOutput() {
        Campaign.Settings h = Campaign.Settings.parse(new String[] {"--hosts", "3", "--repo=/tmp/jckpt"});
        assertEquals(3, h.hosts());
        assertEquals(6, h.ranks());
        assertEquals(Scenario.ACROSS_HOSTS, h.scenarios());
        assertEquals(Path.of("/tmp/jckpt/out/chaos-hosts"), h.out());
        assertEquals(Path.of("/tmp/jckpt/out/chaos-hosts-quick"),
                Campaign.Settings.parse(new String[] {"--hosts=2", "--quick", "--repo=/tmp/jckpt"}).out());
        assertEquals(List.of(Scenario.HOSTS2, Scenario.KILL1), Campaign.Settings.parse(
                new String[] {"--hosts=2", "--scenarios", "hosts2,kill1"}).scenarios());
        // one host: every scenario but the host ones, in the order the seeds of earlier campaigns drew from
        assertTrue(Campaign.Settings.parse(new String[0]).scenarios().stream().noneMatch(Scenario::hostOnly));
        assertEquals(0, Campaign.Settings.parse(new String[0]).hosts());
        assertEquals(1, Scenario.HOST.spareHosts());
        assertEquals(2, Scenario.HOSTS2.spareHosts());
        assertEquals(0, Scenario.SIGSTOP.spareHosts());
    }

    @Test
    void acrossHostsMistakesNameTheOption() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Campaign.Settings.parse(new String[] {"--hosts=1"}))
                .getMessage().startsWith("--hosts must be 2 to 6"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Campaign.Settings.parse(new String[] {"--hosts=2", "--ranks=6"})).getMessage()
                .startsWith("--ranks 6 with --hosts 2: the job has 2 ranks on each host, 4"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Campaign.Settings.parse(new String[] {"--hosts=2", "--scenarios=node1"})).getMessage()
                .startsWith("--scenarios: 'node1' does not run across hosts"));
        assertEquals("--scenarios: 'partition' needs test hosts: add --hosts N", assertThrows(IllegalArgumentException.class,
                () -> Campaign.Settings.parse(new String[] {"--scenarios=partition"})).getMessage());
    }

    @Test
    void campaignMistakesAreOneLineWithExitStatusTwo() throws Exception {
        assertEquals("unknown option --rusn (did you mean --runs?); see bin/chaos --help",
                assertThrows(IllegalArgumentException.class, () -> Campaign.Settings.parse(new String[] {"--rusn", "3"}))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Campaign.Settings.parse(new String[] {"--ranks=3"}))
                .getMessage().startsWith("--ranks must be at least 4"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Campaign.Settings.parse(new String[] {"--scenarios", "kil1"})).getMessage()
                .startsWith("unknown scenario 'kil1'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Campaign.Settings.parse(new String[] {"--corpus", "grpah"})).getMessage()
                .startsWith("unknown corpus program 'grpah'; known: particles,montecarlo,graph,"));
        assertEquals(2, Campaign.run(new String[] {"--seed"}));
    }

    @Test
    void campaignHelpListsTheOptionsAndTheScenarios() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int status;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            status = Campaign.run(new String[] {"--help"});
        } finally {
            System.setOut(stdout);
        }
        String help = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, help);
        assertTrue(help.startsWith("Usage: bin/chaos [OPTIONS]"), help);
        for (String option : new String[] {"--runs", "--seed", "--scenarios", "--out", "--quick", "--ranks", "--iterations",
                "--elements", "--sleep", "--margin", "--corpus"}) {
            assertTrue(help.contains(option), option + " in\n" + help);
        }
        assertTrue(help.contains("Scenarios:") && help.contains("kill2adj") && help.contains("corpus "), help);
        assertTrue(help.contains("Corpus programs (--corpus):") && help.contains("montecarlo"), help);
        assertTrue(!help.contains("--repo"), "an internal option stays hidden: " + help);
    }

    @Test
    void rankProgramOptions() {
        ChaosProgram.Options o = ChaosProgram.Options.parse(new String[] {"--iterations=12", "--disk", "/tmp/d",
                "--kryo-unregistered", "--every=3"});
        assertEquals(12, o.iterations());
        assertEquals(3, o.every());
        assertEquals(Path.of("/tmp/d"), o.disk());
        assertTrue(o.kryoUnregistered());
        assertEquals(4096, ChaosProgram.Options.parse(new String[0]).elements());
        assertEquals("chaos program: unknown option --disk-ration (did you mean --disk-ratio?); see"
                + " io.jckpt.chaos.ChaosProgram --help", assertThrows(IllegalArgumentException.class,
                () -> ChaosProgram.Options.parse(new String[] {"--disk-ration", "2"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ChaosProgram.Options.parse(new String[] {"--elements", "0"})).getMessage().contains("must be positive"));
        assertTrue(assertThrows(CommandLines.HelpRequested.class,
                () -> ChaosProgram.Options.parse(new String[] {"--help"})).usage().contains("--kryo-unregistered"));
    }
}
