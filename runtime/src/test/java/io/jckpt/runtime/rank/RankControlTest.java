package io.jckpt.runtime.rank;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.runtime.control.RecoverFrame;
import io.jckpt.spi.Collective;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rank's control channel against a real control server on loopback, with the launcher's side
 * played by the test: the windows of a recovery that races with a rank's start or with a thread of
 * the abandoned world are opened deterministically (the launcher sends what it sends at that moment).
 */
class RankControlTest {
    private static final Collective CALL = Collective.of(Collective.Kind.TEST);
    private final JobSecret secret = JobSecret.random();
    private final BlockingQueue<ControlChannel> connected = new LinkedBlockingQueue<>();
    private final BlockingQueue<byte[]> exchanges = new LinkedBlockingQueue<>();
    private final BlockingQueue<Byte> types = new LinkedBlockingQueue<>();
    private final CountDownLatch launcherGone = new CountDownLatch(1);
    /** Whether the launcher's side answers heartbeats, as the launcher's {@code RankChannels} does. */
    private final java.util.concurrent.atomic.AtomicBoolean answering = new java.util.concurrent.atomic.AtomicBoolean(true);
    private final java.util.concurrent.atomic.AtomicLong lastAnswerNanos = new java.util.concurrent.atomic.AtomicLong();
    private volatile ControlChannel launcherConnection;
    private ControlServer server;

    @BeforeEach
    void start() throws Exception {
        server = new ControlServer(InetAddress.getLoopbackAddress(), "job1", secret, 4, new ControlListener() {
            @Override
            public void connected(int rank, ControlChannel connection) {
                launcherConnection = connection;
                connected.add(connection);
            }

            @Override
            public void frame(int rank, byte type, byte[] payload) {
                types.add(type);
                if (type == ControlProtocol.EXCHANGE) {
                    exchanges.add(payload);
                }
                if (type == ControlProtocol.HEARTBEAT && answering.get()) {
                    try {
                        launcherConnection.send(ControlProtocol.HEARTBEAT, new byte[0]);
                        lastAnswerNanos.set(System.nanoTime());
                    } catch (java.io.IOException e) {
                        // the rank is gone
                    }
                }
            }

            @Override
            public void disconnected(int rank, ControlChannel connection) {
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        assertTrue(launcherGone.await(10, TimeUnit.SECONDS), "the rank did not notice the launcher left");
    }

    private RankControl connect(int epoch, RankControl.Listener listener) throws Exception {
        return RankControl.connect("127.0.0.1", server.port(), "job1", secret, 1, epoch, listener, launcherGone::countDown);
    }

    private static RankControl.Listener recording(BlockingQueue<RecoverFrame> recovers) {
        return new RankControl.Listener() {
            @Override
            public void recover(RecoverFrame frame) {
                recovers.add(frame);
            }

            @Override
            public void jobComplete(int epoch) {
            }
        };
    }

    @Test
    void aPingIsAnsweredWithAHeartbeat() throws Exception {
        // the launcher's check of hosts at a recovery: a rank that answers proves its host lives
        connect(0, RankControl.Listener.NONE);
        ControlChannel launcher = connected.poll(10, TimeUnit.SECONDS);
        types.clear();
        launcher.send(ControlProtocol.PING, new byte[0]);
        Byte answer = types.poll(10, TimeUnit.SECONDS);
        while (answer != null && answer != ControlProtocol.HEARTBEAT) {
            answer = types.poll(10, TimeUnit.SECONDS); // a report of its own may come first
        }
        assertEquals(ControlProtocol.HEARTBEAT, answer);
    }

    @Test
    void aRecoverySentTheMomentARankConnectsIsHeard() throws Exception {
        // the launcher's catch-up for a rank that joins after a recovery began: RECOVER right at connection
        BlockingQueue<RecoverFrame> recovers = new LinkedBlockingQueue<>();
        RankControl control = connect(1, recording(recovers));
        ControlChannel launcherSide = connected.poll(10, TimeUnit.SECONDS);
        // the launcher detected the failure 3 s before it sent the order
        long before = System.nanoTime();
        launcherSide.send(ControlProtocol.RECOVER, new RecoverFrame(2, "conf", new int[] {3}, 3_000_000).encode());
        RecoverFrame heard = recovers.poll(10, TimeUnit.SECONDS);
        long after = System.nanoTime();
        assertEquals(2, heard.epoch());
        assertArrayEquals(new int[] {3}, heard.failedRanks());
        assertEquals(3_000_000, heard.failureAgeMicros());
        assertEquals(2, control.epoch());
        // the restart counts from the detection: the order's arrival less the age it carried
        assertTrue(control.recoverNanos() >= before - 3_000_000_000L && control.recoverNanos() <= after - 3_000_000_000L,
                (before - control.recoverNanos()) / 1e6 + " ms before the send");
    }

    @Test
    void aThreadOfTheAbandonedWorldNeverTakesPartInTheNewWorldsExchanges() throws Exception {
        BlockingQueue<RecoverFrame> recovers = new LinkedBlockingQueue<>();
        RankControl control = connect(0, recording(recovers));
        ControlChannel launcherSide = connected.poll(10, TimeUnit.SECONDS);
        // a thread of world 0 is in an exchange when the recovery to world 1 arrives: it fails at once
        CompletableFuture<Throwable> pending = CompletableFuture.supplyAsync(() -> {
            try {
                control.allgather(0, CALL, new byte[] {0}, Duration.ofSeconds(60));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        ExchangeFrames.Contribution old = ExchangeFrames.Contribution.decode(exchanges.poll(10, TimeUnit.SECONDS));
        assertEquals(0, old.epoch());
        assertEquals(1, old.sequence());
        launcherSide.send(ControlProtocol.RECOVER, new RecoverFrame(1, "conf", new int[] {2}, 0).encode());
        assertTrue(pending.get(10, TimeUnit.SECONDS) instanceof WorldAbandonedError, String.valueOf(pending.get()));
        recovers.poll(10, TimeUnit.SECONDS);
        // the window of the campaign: the old thread calls again after the channel moved to world 1
        WorldAbandonedError refused = assertThrows(WorldAbandonedError.class,
                () -> control.allgather(0, CALL, new byte[] {9}, Duration.ofSeconds(60)));
        assertTrue(refused.getMessage().contains("a thread of MPJ world 0"), refused.getMessage());
        assertNull(exchanges.poll(200, TimeUnit.MILLISECONDS), "the stale call reached the launcher");
        // the new world's first exchange is its number 1, with the new world's bytes
        CompletableFuture<byte[][]> fresh = CompletableFuture.supplyAsync(() -> {
            try {
                return control.allgather(1, CALL, new byte[] {1}, Duration.ofSeconds(60));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        ExchangeFrames.Contribution first = ExchangeFrames.Contribution.decode(exchanges.poll(10, TimeUnit.SECONDS));
        assertEquals(1, first.epoch());
        assertEquals(1, first.sequence());
        assertArrayEquals(new byte[] {1}, first.bytes());
        launcherSide.send(ControlProtocol.EXCHANGE_RESULT,
                new ExchangeFrames.Result(1, 1, new byte[][] {{5}, {1}}).encode());
        assertArrayEquals(new byte[] {1}, fresh.get(10, TimeUnit.SECONDS)[1]);
    }

    @Test
    void theWaitsOfAnAbandonedWorldAreEndedBeforeTheNewWorldStarts() throws Exception {
        // what the library registers for its data channels: run when RECOVER moves the rank past the world
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch told = new CountDownLatch(1);
        RankControl control = connect(0, new RankControl.Listener() {
            @Override
            public void recover(RecoverFrame frame) {
                order.add("new world " + frame.epoch());
                told.countDown();
            }

            @Override
            public void jobComplete(int epoch) {
            }
        });
        ControlChannel launcherSide = connected.poll(10, TimeUnit.SECONDS);
        control.onAbandoned(0, () -> order.add("world 0's waits ended"));
        var dropped = control.onAbandoned(0, () -> order.add("a closed registration"));
        dropped.close();
        control.onAbandoned(1, () -> order.add("world 1's waits ended"));
        launcherSide.send(ControlProtocol.RECOVER, new RecoverFrame(1, "conf", new int[] {3}, 0).encode());
        assertTrue(told.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("world 0's waits ended", "new world 1"), order);
        // a registration for a world already abandoned runs at once
        control.onAbandoned(0, () -> order.add("late"));
        assertEquals(List.of("world 0's waits ended", "new world 1", "late"), order);
    }

    @Test
    void anExchangeTheLauncherFailsEndsAtOnceWithItsWords() throws Exception {
        RankControl control = connect(0, RankControl.Listener.NONE);
        ControlChannel launcherSide = connected.poll(10, TimeUnit.SECONDS);
        CompletableFuture<byte[][]> pending = CompletableFuture.supplyAsync(() -> {
            try {
                return control.allgather(0, CALL, new byte[0], Duration.ofSeconds(60));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        exchanges.poll(10, TimeUnit.SECONDS);
        launcherSide.send(ControlProtocol.EXCHANGE_FAILED,
                new ExchangeFrames.Failed(0, 1, true, List.of(), "rank 1 called x while rank 0 called y").encode());
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        RankControl.ExchangeFailedException failed = (RankControl.ExchangeFailedException) e.getCause().getCause();
        assertTrue(failed.failed().mismatch());
        assertEquals("rank 1 called x while rank 0 called y", control.failure());
    }

    @Test
    void aRankWhoseLauncherFallsSilentHaltsWithinTheLauncherTimeout() throws Exception {
        // a rank on another host watches its launcher (heartbeat 100 ms, launcher timeout 600 ms): while
        // the launcher answers it runs on; when the answers stop (a partition: the connection stays open,
        // nothing arrives, no close ever reaches the rank) it halts within the timeout and not before
        long timeoutMillis = 600;
        RankControl control = connect(0, RankControl.Listener.NONE);
        ProgressReporter reporter = new ProgressReporter(control, 100, timeoutMillis);
        try {
            assertTrue(connected.poll(10, TimeUnit.SECONDS) != null);
            assertTrue(!launcherGone.await(3 * timeoutMillis, TimeUnit.MILLISECONDS),
                    "the rank halted although its launcher answered");
            answering.set(false);
            assertTrue(launcherGone.await(10, TimeUnit.SECONDS), "the rank did not halt");
            long haltedAfterMillis = (System.nanoTime() - lastAnswerNanos.get()) / 1_000_000L;
            assertTrue(haltedAfterMillis >= timeoutMillis, "halted " + haltedAfterMillis + " ms after the last answer");
            // the bound: the timeout plus a cycle of the reporter (generous for a loaded machine)
            assertTrue(haltedAfterMillis < timeoutMillis + 1_000, "halted only " + haltedAfterMillis
                    + " ms after the last answer");
        } finally {
            reporter.close();
        }
    }
}
