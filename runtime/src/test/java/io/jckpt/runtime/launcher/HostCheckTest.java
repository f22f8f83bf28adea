package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.hosts.RemoteShell;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A recovery's check of hosts with real control connections (a control server on loopback, the launcher's
 * {@link RankChannels} hearing them) and real probes through a stand-in remote shell ({@code fake-rsh}: host
 * "unreachable" exits 255 as ssh does, host "hang" never answers, any other runs the command here). A host is
 * alive by a PING answered on an open connection, or by its probe; a silent connection gets a probe after the
 * ping grace; a host that hangs holds the check only as long as the failed ranks need it.
 */
class HostCheckTest {
    private static final Path FAKE_RSH = Path.of(System.getProperty("jckpt.repo.root", "."))
            .resolve("runtime/src/test/resources/hosts/fake-rsh");
    private final JobSecret secret = JobSecret.random();
    private final BlockingQueue<JobEvent> events = new LinkedBlockingQueue<>();
    private JobConsole console;
    private RankChannels channels;
    private ControlServer server;
    private RemoteCalls calls;
    private RemoteShell shell;
    private final List<ControlConnection> ranks = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        PrintStream out = new PrintStream(new ByteArrayOutputStream());
        console = new JobConsole(out, out, false, null);
        StandbyPool standbys = new StandbyPool((id, host) -> {
            throw new IOException("no standby in this test");
        }, console, List.of(), h -> true);
        channels = new RankChannels(2, standbys, console, events::add, "");
        server = new ControlServer(InetAddress.getLoopbackAddress(), "job1", secret, 2, channels);
        shell = new RemoteShell(List.of(FAKE_RSH.toString()));
        calls = new RemoteCalls((host, command) -> new ProcessBuilder(shell.command(host, Map.of(), List.of(), command))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start());
    }

    @AfterEach
    void stop() {
        calls.stopAll();
        ranks.forEach(ControlConnection::close);
        server.close();
        console.close();
    }

    /** Rank {@code rank} connected; {@code answers}: it answers PINGs as a rank does, else it reads nothing. */
    private ControlChannel rank(int rank, boolean answers) throws Exception {
        ControlConnection c = ControlClient.connect("127.0.0.1", server.port(), "job1", secret, rank);
        ranks.add(c);
        if (answers) {
            Thread reader = new Thread(() -> {
                try {
                    for (byte[] frame = c.receive(); frame != null; frame = c.receive()) {
                        if (frame[0] == ControlProtocol.PING) {
                            c.send(ControlProtocol.HEARTBEAT, new byte[0]);
                        }
                    }
                } catch (IOException e) {
                    // closed by the test
                }
            }, "test-rank-" + rank);
            reader.setDaemon(true);
            reader.start();
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (channels.control(rank) == null && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the server's reader registers it right after the handshake
        }
        assertNotNull(channels.control(rank), "rank " + rank + " connected");
        return channels.control(rank);
    }

    private HostCheck check(long probeMillis) {
        HostCheck check = new HostCheck(calls, shell.toString(), probeMillis, events::add);
        channels.watch(check);
        return check;
    }

    @Test
    void pingsProbesAndTheHostsLostTogether() throws Exception {
        // "a": a rank that answers; "silent": a rank that never reads (probed after the grace, answers the
        // shell); "unreachable": no connection, its probe fails; "spare": asked once a host is lost
        ControlChannel a = rank(0, true);
        ControlChannel silent = rank(1, false);
        HostCheck check = check(20_000);
        check.ask("a", Map.of(0, a));
        check.ask("silent", Map.of(1, silent));
        check.ask("unreachable", Map.of());
        check.later(List.of("spare"));
        HostCheck.Outcome outcome = check.await((lost, unanswered) -> false);
        channels.watch(null);
        assertEquals(Map.of("a", HostCheck.Verdict.ALIVE, "silent", HostCheck.Verdict.ALIVE,
                "unreachable", HostCheck.Verdict.LOST, "spare", HostCheck.Verdict.ALIVE), outcome.verdicts());
        assertEquals(Set.of(), outcome.unanswered());
        assertEquals("it does not answer `" + FAKE_RSH + "`", outcome.lostWhy().get("unreachable"));
        // "silent" answered through its probe, which starts only after the ping grace
        assertTrue(outcome.tookNanos() >= HostCheck.PING_GRACE_MILLIS * 1_000_000L, outcome.toString());
        assertTrue(events.stream().noneMatch(e -> e instanceof JobEvent.HostVerdict), "no verdict came late: " + events);
    }

    @Test
    void aHostThatHangsIsLeftToItsProbeWhenTheFailedRanksFitElsewhere() throws Exception {
        // a host still running ranks of the job: 1 s, since its loss would fail them in this recovery
        ControlChannel a = rank(0, true);
        long start = System.nanoTime();
        HostCheck check = check(20_000);
        check.ask("a", Map.of(0, a));
        check.ask("hang", Map.of());
        HostCheck.Outcome outcome = check.await((lost, unanswered) -> true);
        long took = System.nanoTime() - start;
        channels.watch(null);
        assertEquals(Map.of("a", HostCheck.Verdict.ALIVE), outcome.verdicts());
        assertEquals(Set.of("hang"), outcome.unanswered());
        assertTrue(took >= HostCheck.HANG_GRACE_MILLIS * 1_000_000L && took < 10_000_000_000L,
                "the grace, not the probe's 20 s: " + took / 1_000_000 + " ms");
        // its probe goes on; its verdict reaches the job as an event (here: ended with the job)
        calls.stopAll();
        JobEvent late = events.poll(10, TimeUnit.SECONDS);
        while (late instanceof JobEvent.RankConnected) {
            late = events.poll(10, TimeUnit.SECONDS);
        }
        assertEquals(new JobEvent.HostVerdict("hang", false, "it did not answer `" + FAKE_RSH + "` within 20 s"), late);
    }

    @Test
    void aFailedRanksHostThatHangsIsLeftAfterThePingsGrace() throws Exception {
        // only the failed rank's own host is silent: its verdict would only let the rank restart there
        ControlChannel a = rank(0, true);
        HostCheck check = check(20_000);
        check.ask("a", Map.of(0, a));
        check.suspect("hang");
        check.ask("hang", Map.of());
        HostCheck.Outcome outcome = check.await((lost, unanswered) -> true);
        channels.watch(null);
        assertEquals(Map.of("a", HostCheck.Verdict.ALIVE), outcome.verdicts());
        assertEquals(Set.of("hang"), outcome.unanswered());
        assertTrue(outcome.tookNanos() >= HostCheck.PING_GRACE_MILLIS * 1_000_000L, outcome.toString());
    }

    @Test
    void aHostThatHangsIsWaitedForUpToItsProbesBoundWhenTheRanksNeedIt() throws Exception {
        ControlChannel a = rank(0, true);
        HostCheck check = check(1_500);
        check.ask("a", Map.of(0, a));
        check.ask("hang", Map.of());
        HostCheck.Outcome outcome = check.await((lost, unanswered) -> !unanswered.contains("hang"));
        channels.watch(null);
        assertEquals(Map.of("a", HostCheck.Verdict.ALIVE, "hang", HostCheck.Verdict.LOST), outcome.verdicts());
        assertEquals("it did not answer `" + FAKE_RSH + "` within 1 s", outcome.lostWhy().get("hang"));
        assertTrue(outcome.tookNanos() >= 1_500_000_000L, outcome.toString());
    }
}
