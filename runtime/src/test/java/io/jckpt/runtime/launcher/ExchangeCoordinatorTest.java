package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.spi.Collective;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The launcher's typed exchanges over real control connections: results, mismatches, overdue exchanges. */
class ExchangeCoordinatorTest {
    private static final int N = 4;

    /** Four ranks' client ends (with what each received) and the coordinator over the server ends. */
    private static final class World implements AutoCloseable {
        final Map<Integer, ControlChannel> serverSide = new ConcurrentHashMap<>();
        final ExchangeCoordinator coordinator = new ExchangeCoordinator(N, serverSide::get);
        final List<BlockingQueue<byte[]>> received = new ArrayList<>();
        final List<ControlConnection> clients = new ArrayList<>();
        final ControlServer server;

        World() throws Exception {
            JobSecret secret = JobSecret.random();
            server = new ControlServer(InetAddress.getLoopbackAddress(), "job1", secret, N, new ControlListener() {
                @Override
                public void connected(int rank, ControlChannel connection) {
                    serverSide.put(rank, connection);
                }

                @Override
                public void frame(int rank, byte type, byte[] payload) {
                }

                @Override
                public void disconnected(int rank, ControlChannel connection) {
                }
            });
            for (int r = 0; r < N; r++) {
                ControlConnection c = ControlClient.connect("127.0.0.1", server.port(), "job1", secret, r);
                BlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> {
                    try {
                        for (byte[] f = c.receive(); f != null; f = c.receive()) {
                            queue.add(f);
                        }
                    } catch (IOException ignored) {
                        // closed
                    }
                }, "test-client-" + r);
                reader.setDaemon(true);
                reader.start();
                clients.add(c);
                received.add(queue);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (serverSide.size() < N && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(N, serverSide.size());
        }

        String contribute(int rank, long seq, Collective call, long timeoutMillis, long now) {
            return coordinator.contribute(rank, new ExchangeFrames.Contribution(0, seq, call, timeoutMillis,
                    new byte[] {(byte) rank}), now);
        }

        byte[] next(int rank) throws InterruptedException {
            return received.get(rank).poll(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            for (ControlConnection c : clients) {
                c.close();
            }
            server.close();
        }
    }

    @Test
    void theSameCallOnEveryRankCompletes() throws Exception {
        try (World w = new World()) {
            Collective call = Collective.of(Collective.Kind.CTRL, 3);
            for (int r = 0; r < N; r++) {
                assertNull(w.contribute(r, 1, call, 30_000, 0));
            }
            for (int r = 0; r < N; r++) {
                byte[] frame = w.next(r);
                assertEquals(ControlProtocol.EXCHANGE_RESULT, frame[0]);
                ExchangeFrames.Result result = ExchangeFrames.Result.decode(java.util.Arrays.copyOfRange(frame, 1, frame.length));
                assertArrayEquals(new byte[] {2}, result.all()[2]);
            }
        }
    }

    @Test
    void aDifferentCallFailsEveryRankAtOnceNamingRanksAndCalls() throws Exception {
        try (World w = new World()) {
            assertNull(w.contribute(0, 1, Collective.of(Collective.Kind.CLOSE, 5), 30_000, 0));
            assertNull(w.contribute(2, 1, Collective.of(Collective.Kind.CLOSE, 5), 30_000, 0));
            String problem = w.contribute(1, 1, Collective.of(Collective.Kind.SIZE_AGREEMENT, 5), 30_000, 0);
            assertTrue(problem.contains("rank 1 called here() #5 (slot size agreement) while ranks 0,2 called close()"
                    + " at round 5 (close)"), problem);
            for (int r = 0; r < N; r++) { // rank 3, which has not called yet, hears it too
                byte[] frame = w.next(r);
                assertEquals(ControlProtocol.EXCHANGE_FAILED, frame[0]);
                ExchangeFrames.Failed failed = ExchangeFrames.Failed.decode(java.util.Arrays.copyOfRange(frame, 1, frame.length));
                assertTrue(failed.mismatch());
                assertTrue(failed.message().startsWith("rank 1 called here() #5"), failed.message());
            }
        }
    }

    @Test
    void anOverdueExchangeNamesTheMissingRanksAndTheCall() throws Exception {
        try (World w = new World()) {
            long start = 1_000_000_000L;
            Collective call = Collective.of(Collective.Kind.CTRL, 2);
            w.contribute(2, 1, call, 5_000, start);
            w.contribute(0, 1, call, 5_000, start + 1_000_000);
            assertTrue(w.coordinator.expireOverdue(start + 4_999_000_000L).isEmpty());
            List<String> problems = w.coordinator.expireOverdue(start + 5_000_000_000L);
            assertEquals(1, problems.size());
            assertTrue(problems.get(0).contains("ranks 1,3 did not call ctrl() at round 2 (ctrl options) in time, which"
                    + " ranks 0,2 called"), problems.get(0));
            for (int r = 0; r < N; r++) {
                byte[] frame = w.next(r);
                assertEquals(ControlProtocol.EXCHANGE_FAILED, frame[0]);
                ExchangeFrames.Failed failed = ExchangeFrames.Failed.decode(java.util.Arrays.copyOfRange(frame, 1, frame.length));
                assertEquals(List.of(1, 3), failed.missing());
            }
            // a late contribution starts nothing that could complete with stale parts
            assertTrue(w.coordinator.expireOverdue(start + 9_000_000_000L).isEmpty());
        }
    }
}
