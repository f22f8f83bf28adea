package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat against real processes: a stopped one (SIGSTOP) is failed at the timeout, a running
 * one that is merely not heard (starved) only after {@link HeartbeatDetector#STARVED_FACTOR} timeouts.
 */
class HeartbeatDetectorTest {

    /** One rank, last heard {@code silentMillis} ago, with process {@code pid}. */
    private static FailureDetector.View view(long silentMillis, long pid) {
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

            new ProcessBuilder("kill", "-STOP", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (HeartbeatDetector.processState(process.pid()) != 'T' && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals('T', HeartbeatDetector.processState(process.pid()));
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
}
