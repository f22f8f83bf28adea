package io.jckpt.runtime.rank;

import io.jckpt.spi.Collective;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Latches at points of a rank's start where tests open failure windows deterministically (a late
 * rank, a second failure while a replacement starts, a rank stopped between the library's exchanges
 * of its start-up). Off unless the rank JVM has the system property
 * {@value #PROPERTY} (a directory; given with {@code --jvm-opt}). At point P, rank R of world E waits
 * when {@code DIR/hold-P-rank-R-epoch-E} exists: it creates {@code DIR/reached-P-rank-R-epoch-E} (holding its
 * pid), then
 * waits (bounded by {@link #MAX_HOLD_MILLIS}) until the test creates {@code DIR/release-P-rank-R-epoch-E}.
 */
final class TestHooks {
    /** The system property naming the latch directory. */
    static final String PROPERTY = "jckpt.test.hooks";
    /** The longest a latch holds a rank. */
    static final long MAX_HOLD_MILLIS = 120_000;
    private static final long POLL_MILLIS = 10;

    private TestHooks() {
    }

    /** Before the rank connects to the launcher. */
    static void beforeConnect(int rank, int epoch) {
        hold("before-connect", rank, epoch);
    }

    /** After the rank connected, before its program starts. */
    static void afterConnect(int rank, int epoch) {
        hold("after-connect", rank, epoch);
    }

    /**
     * Before this rank contributes to one of the library's exchanges of world {@code epoch} (point
     * {@code before-exchange-KIND}, the {@link Collective.Kind} in lower case with '-', e.g.
     * {@code before-exchange-open}: in Ckpt.open, MPI.Init done).
     */
    static void beforeExchange(int rank, int epoch, Collective.Kind kind) {
        hold("before-exchange-" + point(kind), rank, epoch);
    }

    /**
     * Once one of the library's exchanges completed on this rank ({@code after-exchange-KIND}; e.g.
     * {@code after-exchange-open}: every rank has its open status, the others go on to restore and join
     * the replication ring).
     */
    static void afterExchange(int rank, int epoch, Collective.Kind kind) {
        hold("after-exchange-" + point(kind), rank, epoch);
    }

    private static String point(Collective.Kind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** When the rank found its launcher gone (connection ended, or silent too long), before it halts. */
    static void beforeHalt(int rank, int epoch) {
        hold("launcher-lost", rank, epoch);
    }

    /** After the job completed, before the rank exits. */
    static void beforeExit(int rank, int epoch) {
        hold("before-exit", rank, epoch);
    }

    private static void hold(String point, int rank, int epoch) {
        String dir = System.getProperty(PROPERTY);
        if (dir == null) {
            return;
        }
        String name = point + "-rank-" + rank + "-epoch-" + epoch;
        Path root = Path.of(dir);
        if (!Files.exists(root.resolve("hold-" + name))) {
            return;
        }
        try {
            // the pid in it: a test can stop this rank before the launcher has said where it runs
            Files.writeString(root.resolve("reached-" + name), Long.toString(ProcessHandle.current().pid()),
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            long deadline = System.nanoTime() + MAX_HOLD_MILLIS * 1_000_000L;
            while (!Files.exists(root.resolve("release-" + name)) && System.nanoTime() < deadline) {
                Thread.sleep(POLL_MILLIS); // a test latch polled on a file: the test runs in another process
            }
        } catch (IOException e) {
            throw new IllegalStateException("test hook " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
