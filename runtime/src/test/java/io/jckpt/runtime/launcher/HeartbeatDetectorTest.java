package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat against real processes: a stopped one (SIGSTOP) is failed at the timeout, a running
 * one that is merely not heard (starved) only after {@link HeartbeatDetector#STARVED_FACTOR} timeouts;
 * one that has not connected yet only when it is stopped.
 */
class HeartbeatDetectorTest {

    /** One rank, last heard {@code silentMillis} ago, with process {@code pid}, connected. */
    private static FailureDetector.View view(long silentMillis, long pid) {
        return view(silentMillis, pid, true);
    }

    /** As above; {@code joined} false: its process started {@code silentMillis} ago and has not connected. */
    private static FailureDetector.View view(long silentMillis, long pid, boolean joined) {
        long heard = System.nanoTime() - silentMillis * 1_000_000L;
        return new FailureDetector.View() {
            @Override
            public int worldSize() {
                return 1;
            }

            @Override
            public long lastHeardNanos(int rank) {
                return heard;
            }

            @Override
            public boolean expectedAlive(int rank) {
                return true;
            }

            @Override
            public long localPid(int rank) {
                return pid;
            }

            @Override
            public boolean joined(int rank) {
                return joined;
            }
        };
    }

    @Test
    void aStoppedProcessFailsAtTheTimeoutARunningOneIsGivenMoreTime() throws Exception {
        HeartbeatDetector detector = new HeartbeatDetector(1000);
        Process process = new ProcessBuilder("sleep", "60").start();
        try {
            assertTrue(detector.poll(view(500, process.pid())).isEmpty());
            // asleep in the kernel, not stopped: starved or slow, not gone
            assertTrue(detector.poll(view(1500, process.pid())).isEmpty());
            Map<Integer, String> hung = detector.poll(view(5100, process.pid()));
            assertTrue(hung.get(0).contains("process running but unresponsive"), hung.toString());

            stop(process);
            Map<Integer, String> stopped = detector.poll(view(1500, process.pid()));
            assertTrue(stopped.get(0).contains("rank 0 silent for") && stopped.get(0).contains("process stopped"),
                    stopped.toString());
        } finally {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        // a process not on this host: the timeout alone decides
        assertEquals(1, detector.poll(view(1500, -1)).size());
    }

    @Test
    void aRankThatHasNotConnectedYetFailsOnlyWhenItsProcessIsStopped() throws Exception {
        HeartbeatDetector detector = new HeartbeatDetector(1000);
        Process process = new ProcessBuilder("sleep", "60").start();
        try {
            // a JVM still starting, however slowly: the start timeout bounds it, never the heartbeat
            assertTrue(detector.poll(view(1500, process.pid(), false)).isEmpty());
            assertTrue(detector.poll(view(60_000, process.pid(), false)).isEmpty());
            // nor a remote one, whose process state is not known here
            assertTrue(detector.poll(view(60_000, -1, false)).isEmpty());

            stop(process);
            assertTrue(detector.poll(view(500, process.pid(), false)).isEmpty());
            Map<Integer, String> stopped = detector.poll(view(1500, process.pid(), false));
            assertEquals("rank 0 silent for 1500 ms since its start, before it connected (heartbeat timeout 1000 ms,"
                    + " process stopped)", stopped.get(0).replaceFirst("silent for 150[0-9] ms", "silent for 1500 ms"));
        } finally {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRankThatConnectsWhileItIsPolledIsNotTakenForASilentOne() throws Exception {
        // a JVM that took 20 s to start (a loaded host) connects between the detector's two reads of it
        HeartbeatDetector detector = new HeartbeatDetector(1000);
        Process process = new ProcessBuilder("sleep", "60").start();
        try {
            long spawned = System.nanoTime() - 20_000_000_000L;
            java.util.concurrent.atomic.AtomicLong connectedAt = new java.util.concurrent.atomic.AtomicLong();
            FailureDetector.View connecting = new FailureDetector.View() {
                /** The rank connects right after the detector's first look at it, whichever that is. */
                private void look() {
                    connectedAt.compareAndSet(0, System.nanoTime()); // heard at its connection, then joined
                }

                @Override
                public int worldSize() {
                    return 1;
                }

                @Override
                public long lastHeardNanos(int rank) {
                    long heard = connectedAt.get() != 0 ? connectedAt.get() : spawned;
                    look();
                    return heard;
                }

                @Override
                public boolean expectedAlive(int rank) {
                    return true;
                }

                @Override
                public long localPid(int rank) {
                    return process.pid();
                }

                @Override
                public boolean joined(int rank) {
                    boolean joined = connectedAt.get() != 0;
                    look();
                    return joined;
                }
            };
            assertTrue(detector.poll(connecting).isEmpty(), "a starting JVM's silence counted against a connected rank");
        } finally {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** SIGSTOP, and (bounded) until the kernel shows the process stopped. */
    private static void stop(Process process) throws Exception {
        new ProcessBuilder("kill", "-STOP", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (HeartbeatDetector.processState(process.pid()) != 'T' && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals('T', HeartbeatDetector.processState(process.pid()));
    }
}
