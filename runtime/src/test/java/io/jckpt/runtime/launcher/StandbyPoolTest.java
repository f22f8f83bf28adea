package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StandbyPool} per host, without a job: real processes stand for the standby JVMs (they do not
 * matter here: which host a standby is on does) and real control connections say which standbys
 * connected; the supervisor's calls are made by the test.
 */
class StandbyPoolTest {
    private static final String JOB = "pool-test";
    private final JobSecret secret = JobSecret.random();
    private final ByteArrayOutputStream lines = new ByteArrayOutputStream();
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final List<RankHost> processes = new CopyOnWriteArrayList<>();
    private final List<ControlConnection> clients = new ArrayList<>();
    private final Set<String> lost = new HashSet<>();
    private final BlockingQueue<Integer> connected = new LinkedBlockingQueue<>();
    private JobConsole console;
    private ControlServer server;
    private StandbyPool pool;

    @BeforeEach
    void start() throws Exception {
        PrintStream out = new PrintStream(lines, true, StandardCharsets.UTF_8);
        console = new JobConsole(out, out, false, null);
        pool = new StandbyPool((id, host) -> {
            started.add(id + "@" + host);
            RankHost p = RankHost.start("standby-" + id, List.of(), List.of("sleep", "60"), Map.of(), "", console,
                    status -> { });
            processes.add(p);
            return p;
        }, console, List.of("a", "b"), host -> !lost.contains(host));
        server = new ControlServer(InetAddress.getLoopbackAddress(), JOB, secret, 1, new ControlListener() {
            @Override
            public void connected(int rank, ControlChannel connection) {
                pool.connected(ControlProtocol.STANDBY_CLAIM_BASE - rank, connection);
                connected.add(ControlProtocol.STANDBY_CLAIM_BASE - rank);
            }

            @Override
            public void frame(int rank, byte type, byte[] payload) {
            }

            @Override
            public void disconnected(int rank, ControlChannel connection) {
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(ControlConnection::close);
        server.close();
        for (RankHost p : processes) {
            p.kill();
            p.awaitExit(5_000);
        }
    }

    /** Standby {@code id} connects (a real handshake) and says it is ready. */
    private void connectAndReady(int id) throws Exception {
        clients.add(ControlClient.connect(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), JOB, secret,
                ControlProtocol.STANDBY_CLAIM_BASE - id));
        assertEquals(id, connected.poll(10, TimeUnit.SECONDS), "standby " + id + " connected");
        pool.ready(id, 1_000_000);
    }

    /** SIGKILLs a process and waits for it: the pool hears of a standby's exit after it happened. */
    private static RankHost dead(RankHost process) {
        process.kill();
        assertTrue(process.awaitExit(5_000));
        return process;
    }

    @Test
    void aFailedRankGetsAStandbyOfItsHostOnlyAndTheUsedOneIsReplacedThere() throws Exception {
        pool.owe(1, 0, () -> true);
        pool.replenish();
        assertEquals(List.of("0@a", "1@b"), started, "one standby per host");
        connectAndReady(0);
        connectAndReady(1);
        assertTrue(lines.toString(StandardCharsets.UTF_8).contains("standby 1 ready (pid "
                + processes.get(1).pid() + " on b, warmed up"), lines.toString(StandardCharsets.UTF_8));
        assertNull(pool.take("c"), "no standby on a host without one");
        StandbyPool.Standby onB = pool.take("b");
        assertNotNull(onB);
        assertEquals(1, onB.id);
        assertEquals(" on b", onB.where());
        assertNull(pool.take("b"), "b's only standby is taken: a's is not handed out for b");
        boolean[] due = {false};
        pool.oweTaken(System.nanoTime() + 60_000_000_000L, () -> due[0]);
        pool.replenish();
        assertEquals(2, started.size(), "not due yet");
        due[0] = true;
        pool.replenish();
        assertEquals(List.of("0@a", "1@b", "2@b"), started, "the used standby is replaced on its own host");
        pool.oweTaken(0, () -> true); // nothing taken since: nothing more owed
        pool.replenish();
        assertEquals(3, started.size());
    }

    @Test
    void aLostHostGetsNoStandbyAgainAndLossesCountPerHost() throws Exception {
        pool.owe(1, 0, () -> true);
        pool.replenish();
        // a's standby: its agent reports the remote shell's own failure: another after a delay, unless a is lost
        pool.exited(dead(processes.get(0)), Job.REMOTE_SHELL_LOST, false, Job.REMOTE_SHELL_LOST);
        assertTrue(lines.toString(StandardCharsets.UTF_8).contains("standby 0 (pid " + processes.get(0).pid()
                + ") on a exited with code 255 (its host or session is gone); starting another in 2 s unless a is found"
                + " lost"), lines.toString(StandardCharsets.UTF_8));
        lost.add("a");
        pool.owe(1, 0, () -> true); // a's owed standby is dropped with it, b gets one
        pool.replenish();
        assertEquals(List.of("0@a", "1@b", "2@b"), started);
        // b's standbys die one after another: after MAX_LOSSES b gets no more
        for (int i = 0; i < StandbyPool.MAX_LOSSES + 1; i++) {
            RankHost last = processes.get(processes.size() - 1);
            pool.exited(dead(last), 137, false, Job.REMOTE_SHELL_LOST);
        }
        String out = lines.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(StandbyPool.MAX_LOSSES + 1 + " standbys lost on b: no more standbys there"), out);
        int startedOnB = (int) started.stream().filter(s -> s.endsWith("@b")).count();
        pool.owe(1, 0, () -> true);
        pool.replenish();
        assertEquals(startedOnB, started.stream().filter(s -> s.endsWith("@b")).count(), started.toString());
    }
}
