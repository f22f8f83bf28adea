package io.jckpt.runtime.rank;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A respawning rank's {@code System.err}: a stack trace that MPJ Express prints itself (its own
 * {@code printStackTrace} calls, in its threads or in {@code MPI.Init}, when a peer's connection
 * breaks) is held until the fate of the world it came from is known. When that world is abandoned
 * after a failure the trace was the failure's echo: it goes to the debug log only (logger
 * {@code io.jckpt.runtime.rank.WorldTraces}, {@code --log-level debug}). When the world is still the
 * current one {@link #HOLD_MILLIS} later it was not: it is printed as MPJ printed it. Every other
 * line passes at once. One daemon thread ({@code jckpt-held-traces}) runs while traces are held.
 */
final class WorldTraces extends PrintStream {
    private static final Logger LOG = LoggerFactory.getLogger(WorldTraces.class);
    /**
     * How long an MPJ trace waits for its world's fate: past the launcher's default detection bound
     * (heartbeat 3 s) and its 1 s program-error window, so a failure's echo is recognised.
     */
    static final long HOLD_MILLIS = 5_000;
    /** The packages of MPJ Express (niodev, its device layer, its buffers, its MPI API). */
    private static final Set<String> MPJ_PACKAGES = Set.of("mpi", "xdev", "mpjdev", "mpjbuf");
    private static final StackWalker WALKER = StackWalker.getInstance();

    private record Held(Throwable trace, int epoch, long sinceNanos, String thread) {
    }

    private final PrintStream out;
    private final int rank;
    private final IntPredicate abandoned;
    private final java.util.function.IntSupplier threadEpoch;
    private final LongSupplier clock;
    private final long holdNanos;
    /** Guarded by this stream's monitor (the lock every write and printStackTrace takes). */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The thread whose MPJ trace is being swallowed line by line (it is held whole), or null. */
    private Thread swallowing;
    private Thread releaser;

    /**
     * @param out       where lines go (the process's stderr)
     * @param rank      this rank, for the debug log
     * @param abandoned   whether a world (by epoch) has been abandoned after a failure
     * @param threadEpoch the world of the calling thread
     * @param clock       System::nanoTime, or a test's clock
     * @param holdMillis  how long a trace is held
     */
    WorldTraces(PrintStream out, int rank, IntPredicate abandoned, java.util.function.IntSupplier threadEpoch,
                LongSupplier clock, long holdMillis) {
        super(out, true);
        this.out = out;
        this.rank = rank;
        this.abandoned = abandoned;
        this.threadEpoch = threadEpoch;
        this.clock = clock;
        this.holdNanos = TimeUnit.MILLISECONDS.toNanos(holdMillis);
    }

    /** Installs one as {@code System.err} for the worlds of {@code rank} (RankServices knows their epochs). */
    static WorldTraces install(int rank) {
        WorldTraces traces = new WorldTraces(System.err, rank, epoch -> {
            WorldInfo now = RankServices.world();
            return now != null && epoch < now.epoch();
        }, RankServices::threadEpoch, System::nanoTime, HOLD_MILLIS);
        System.setErr(traces);
        return traces;
    }

    @Override
    public void println(Object x) {
        synchronized (this) {
            Thread me = Thread.currentThread();
            if (x instanceof Throwable t && calledFromMpj()) {
                // Throwable.printStackTrace holds this monitor for the whole trace: its lines follow
                swallowing = me;
                held.add(new Held(t, threadEpoch.getAsInt(), clock.getAsLong(), me.getName()));
                startReleaser();
                return;
            }
            if (swallowing == me && x instanceof String line && isTraceLine(line)) {
                return; // a line of the trace just held (it is printed again from the throwable if need be)
            }
            swallowing = null;
            super.println(x);
        }
    }

    @Override
    public void println(String x) {
        synchronized (this) {
            swallowing = null;
            super.println(x);
        }
    }

    /** The lines printStackTrace writes after the first: frames, causes, suppressed, "... n more". */
    static boolean isTraceLine(String line) {
        return line.startsWith("\t") || line.startsWith("Caused by: ") || line.startsWith("Suppressed: ");
    }

    /** Whether the Throwable being printed was printed by MPJ Express's own code. */
    private static boolean calledFromMpj() {
        return WALKER.walk(frames -> frames
                .map(StackWalker.StackFrame::getClassName)
                .filter(c -> !c.startsWith("java.") && !c.equals(WorldTraces.class.getName()))
                .findFirst()
                .map(c -> c.indexOf('.') > 0 && MPJ_PACKAGES.contains(c.substring(0, c.indexOf('.'))))
                .orElse(false));
    }

    /**
     * Decides the traces whose hold is over: dropped to the debug log when their world was abandoned,
     * printed when it was not.
     *
     * @param all true: decide every held trace now (the rank is about to end)
     * @return nanoseconds until the next held trace is due, or -1 when none is held
     */
    long release(boolean all) {
        java.util.List<Held> echoes = new java.util.ArrayList<>();
        long next;
        synchronized (this) {
            long now = clock.getAsLong();
            while (!held.isEmpty() && (all || now - held.peekFirst().sinceNanos() >= holdNanos
                    || abandoned.test(held.peekFirst().epoch()))) {
                Held h = held.pollFirst();
                if (abandoned.test(h.epoch())) {
                    echoes.add(h);
                } else {
                    h.trace().printStackTrace(out);
                }
            }
            next = held.isEmpty() ? -1 : Math.max(1, held.peekFirst().sinceNanos() + holdNanos - now);
        }
        for (Held h : echoes) { // outside the monitor: the logger writes to this stream
            LOG.debug("rank {}: MPJ Express printed this in world {} ({}), abandoned after a failure", rank,
                    h.epoch(), h.thread(), h.trace());
        }
        return next;
    }

    /** @return how many traces are held */
    synchronized int heldCount() {
        return held.size();
    }

    private void startReleaser() {
        if (releaser != null) {
            notifyAll();
            return;
        }
        releaser = new Thread(this::releaseLoop, "jckpt-held-traces");
        releaser.setDaemon(true);
        releaser.start();
    }

    private void releaseLoop() {
        for (;;) {
            long wait = release(false);
            synchronized (this) {
                if (held.isEmpty()) {
                    releaser = null; // stops; the next held trace starts another
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, wait);
                } catch (InterruptedException e) {
                    releaser = null;
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
