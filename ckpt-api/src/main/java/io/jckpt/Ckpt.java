package io.jckpt;

import io.jckpt.data.Tags;
import io.jckpt.spi.CheckpointerProvider;
import io.jckpt.spi.CheckpointerProviders;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The static facade, mirroring the paper's C interface so that a program reads like its Figure 1:
 * <pre>{@code
 * MPI.Init(args);
 * Ckpt.open(CkptOptions.builder().replicas(1).build());
 * Ckpt.register("u", u);       // after a failure: restored in place from the checkpoint
 * Ckpt.register("it", it);
 * while (it[0] < n) { compute(); it[0]++; Ckpt.here(it[0]); }
 * Ckpt.close();
 * }</pre>
 * Every method delegates to the process-wide {@link Checkpointer} created by {@link #open}; see that
 * interface for the contract of each call. The implementation comes from a
 * {@link CheckpointerProvider} on the class path. Int tags are the decimal text of the int.
 */
public final class Ckpt {
    private static final ReentrantLock LOCK = new ReentrantLock();
    /** close() only swaps the instance under the lock; an open in progress may hold it longer. */
    private static final Duration CLOSE_LOCK_BOUND = Duration.ofSeconds(60);
    /** The open checkpointer's JMX name (null when none, or when its registration failed). */
    private static CkptMBeans.Registration mbean;
    private static volatile Checkpointer current;
    private static volatile boolean wasClosed;

    private Ckpt() {
    }

    /**
     * Opens with the job's settings (the paper's MPI_Ckpt_open): the launcher's options
     * ({@code ckpt-run --replicas 2 --disk DIR ...}), else the system properties, else the environment
     * ({@code JCKPT_REPLICAS}, ...), else the defaults; see {@link JobSettings}.
     *
     * @return the checkpointer
     */
    public static Checkpointer open() {
        return open(CkptOptions.defaults());
    }

    /**
     * Opens, with the rank taken from the launcher: its {@link JobServices} when installed (a rank
     * started by {@code ckpt-run}), else the environment ({@link RankContext#fromEnvironment()}).
     *
     * @param options the options (the same on every rank)
     * @return the checkpointer
     * @throws CkptStateException when already open
     * @throws CkptException      when no implementation is on the class path or the environment is incomplete
     */
    public static Checkpointer open(CkptOptions options) {
        Objects.requireNonNull(options, "options");
        JobServices services = JobServices.current();
        return open(options, services != null ? services.context() : RankContext.fromEnvironment());
    }

    /**
     * Opens with an explicit rank context.
     *
     * @param options the options (the same on every rank)
     * @param context the rank
     * @return the checkpointer
     */
    public static Checkpointer open(CkptOptions options, RankContext context) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(context, "context");
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return open(options, context, CheckpointerProviders.load(loader == null ? Ckpt.class.getClassLoader() : loader));
    }

    /**
     * Opens with an explicit provider (tests, embedding).
     *
     * @param options  the options
     * @param context  the rank
     * @param provider the implementation
     * @return the checkpointer
     */
    public static Checkpointer open(CkptOptions options, RankContext context, CheckpointerProvider provider) {
        Objects.requireNonNull(provider, "provider");
        long began = System.nanoTime();
        JobServices services = JobServices.current();
        if (services != null) {
            services.checkCurrentWorld(); // a thread of an abandoned world opens nothing
        }
        // bounded: an open of an abandoned world still running on this rank ends at its next exchange,
        // which the new world refuses at once
        Duration bound = options.exchangeTimeout().multipliedBy(2);
        lock(bound, "Ckpt.open on rank " + context.rank());
        try {
            if (current != null && current.context().epoch() < context.epoch()) {
                // the program re-entered main in a new MPJ world after a recovery: the old
                // instance belongs to the abandoned world; its checkpoints live on in the stores
                Checkpointer abandoned = current;
                current = null;
                if (mbean != null) {
                    mbean.close();
                }
                mbean = null;
                abandoned.close();
            }
            if (current != null) {
                throw new CkptStateException("Ckpt.open called on rank " + context.rank()
                        + " while already open; call Ckpt.close() first");
            }
            options.validateFor(context.size());
            Checkpointer c = Objects.requireNonNull(provider.create(options, context),
                    () -> "provider " + provider.name() + " returned null");
            current = c;
            wasClosed = false;
            mbean = CkptMBeans.registerInBackground(context, c::stats);
            if (services != null && context.rank() == 0 && context.epoch() == 0) {
                // the job's log says once which settings are in effect and where each came from
                services.event(new io.jckpt.spi.RankEvent.Settings(options.settingsSummary()));
            }
            if (services != null) {
                services.opened(System.nanoTime() - began); // the report page names the start-up's phases
            }
            return c;
        } finally {
            LOCK.unlock();
        }
    }

    private static void lock(Duration bound, String who) {
        try {
            if (!LOCK.tryLock(bound.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new CkptStateException(who + " waited " + bound.toMillis() + " ms for another open or close"
                        + " of this process to end; is another thread calling Ckpt.open?");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptStateException(who + " was interrupted while waiting for another open or close to end");
        }
    }

    /**
     * @return the open checkpointer
     * @throws CkptStateException before open or after close
     */
    public static Checkpointer instance() {
        JobServices services = JobServices.current();
        if (services != null) {
            services.checkCurrentWorld();
        }
        Checkpointer c = current;
        if (c == null) {
            throw new CkptStateException(wasClosed
                    ? "the checkpointer is closed: Ckpt.close() was called; open it again with Ckpt.open(options)"
                    : "the checkpointer is not open: call Ckpt.open(options) after MPI.Init and before register/here/rollback");
        }
        return c;
    }

    /** @return whether a checkpointer is open */
    public static boolean isOpen() {
        return current != null;
    }

    /**
     * @param tag  unique name of the data
     * @param data the data
     * @see Checkpointer#register(String, Object)
     */
    public static void register(String tag, Object data) {
        instance().register(tag, data);
    }

    /**
     * @param tag  int tag (its decimal text)
     * @param data the data
     * @see Checkpointer#register(String, Object)
     */
    public static void register(int tag, Object data) {
        register(Tags.of(tag), data);
    }

    /** @see Checkpointer#here() */
    public static void here() {
        instance().here();
    }

    /**
     * @param step the program's step (its iteration count), {@code >= 0}, compared across ranks
     * @see Checkpointer#here(long)
     */
    public static void here(long step) {
        instance().here(step);
    }

    /**
     * A counter compare on the open checkpointer; see {@link Checkpointer#needCheckpoint()}. In a
     * loop, hold the {@link Checkpointer} from {@link #instance()} and call it directly to skip the
     * facade's world check.
     *
     * @return whether a checkpoint is due at this call
     */
    public static boolean needCheckpoint() {
        return instance().needCheckpoint();
    }

    /**
     * @return whether a checkpoint was taken
     * @see Checkpointer#hereIfDue()
     */
    public static boolean hereIfDue() {
        return instance().hereIfDue();
    }

    /**
     * @param step the program's step, {@code >= 0}
     * @return whether a checkpoint was taken
     * @see Checkpointer#hereIfDue(long)
     */
    public static boolean hereIfDue(long step) {
        return instance().hereIfDue(step);
    }

    /**
     * @param tag  the tag
     * @param data the object to restore into
     * @param <T>  its type
     * @return data itself, holding the restored state
     * @see Checkpointer#rollback(String, Object)
     */
    public static <T> T rollback(String tag, T data) {
        return instance().rollback(tag, data);
    }

    /**
     * @param tag  int tag (its decimal text)
     * @param data the object to restore into
     * @param <T>  its type
     * @return data itself, holding the restored state
     * @see Checkpointer#rollback(String, Object)
     */
    public static <T> T rollback(int tag, T data) {
        return rollback(Tags.of(tag), data);
    }

    /**
     * @param tag  the tag
     * @param type the expected class
     * @param <T>  the expected type
     * @return the restored object
     * @see Checkpointer#rollbackObject(String, Class)
     */
    public static <T> T rollbackObject(String tag, Class<T> type) {
        return instance().rollbackObject(tag, type);
    }

    /**
     * @param tag the tag
     * @see Checkpointer#remove(String)
     */
    public static void remove(String tag) {
        instance().remove(tag);
    }

    /**
     * @param tag int tag (its decimal text)
     * @see Checkpointer#remove(String)
     */
    public static void remove(int tag) {
        remove(Tags.of(tag));
    }

    /**
     * @param ctrl the change
     * @see Checkpointer#ctrl(CtrlOptions)
     */
    public static void ctrl(CtrlOptions ctrl) {
        instance().ctrl(ctrl);
    }

    /** @return whether this start is a recovery @see Checkpointer#isRecovery() */
    public static boolean isRecovery() {
        return instance().isRecovery();
    }

    /** @return whether this rank was re-spawned @see Checkpointer#isNewRank() */
    public static boolean isNewRank() {
        return instance().isNewRank();
    }

    /** @return the newest round taken or restored @see Checkpointer#round() */
    public static long round() {
        return instance().round();
    }

    /** @return counters and timings @see Checkpointer#stats() */
    public static CkptStats stats() {
        return instance().stats();
    }

    /** Closes the checkpointer (the paper's MPI_Ckpt_close); does nothing when none is open. */
    public static void close() {
        Checkpointer c;
        lock(CLOSE_LOCK_BOUND, "Ckpt.close");
        try {
            c = current;
            current = null;
            if (c != null) {
                wasClosed = true;
            }
            if (mbean != null) {
                mbean.close();
            }
            mbean = null;
        } finally {
            LOCK.unlock();
        }
        if (c != null) {
            c.close();
        }
    }
}
