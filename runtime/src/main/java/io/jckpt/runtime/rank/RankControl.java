package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.RankExit;
import io.jckpt.runtime.control.RecoverFrame;
import io.jckpt.spi.Collective;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A rank's end of the control channel: reports to the launcher, takes part in status exchanges
 * through it, and halts the rank when the launcher says so or disappears (no rank outlives its
 * job). Owns one daemon reader thread.
 */
public final class RankControl {
    private static final int EXIT_FAILED = 1;
    /** How long after its own timeout a rank still waits for the launcher's verdict on an exchange. */
    private static final long VERDICT_GRACE_NANOS = 2_000_000_000L;

    private final int rank;
    private final ControlConnection connection;
    private final Listener listener;
    private final Runnable launcherGone;
    private final Thread reader;
    private final ConcurrentHashMap<Long, CompletableFuture<byte[][]>> exchanges = new ConcurrentHashMap<>();
    /** Guards {@link #epoch} and {@link #sequence} together: a call is numbered in the world it was made in. */
    private final Object worldLock = new Object();
    private volatile int epoch;
    private long sequence;
    private volatile ExchangeFrames.Failed lastFailure;
    /** When the last frame from the launcher arrived (the handshake's answer counts). */
    private volatile long lastHeardNanos = System.nanoTime();
    private final java.util.concurrent.atomic.AtomicBoolean lost = new java.util.concurrent.atomic.AtomicBoolean();
    /** System.nanoTime() when the newest RECOVER of a new epoch arrived, -1 before one did. */
    private volatile long recoverNanos = -1;
    /** What ends the waits of each world when it is abandoned ({@link #onAbandoned}); guarded by worldLock. */
    private final java.util.List<Abandonment> onAbandoned = new java.util.ArrayList<>();

    /** An action to run once world {@code epoch} is abandoned (identity matters: one per registration). */
    private static final class Abandonment {
        final int epoch;
        final Runnable action;

        Abandonment(int epoch, Runnable action) {
            this.epoch = epoch;
            this.action = action;
        }
    }

    /** What the launcher tells a rank besides exchange results; called on the reader thread. */
    public interface Listener {
        /** Hears nothing: a rank that never changes worlds (multicore). */
        Listener NONE = new Listener() {
            @Override
            public void recover(RecoverFrame frame) {
            }

            @Override
            public void jobComplete(int epoch) {
            }
        };

        /** Abandon the current world and re-enter the program in a new one. */
        void recover(RecoverFrame frame);

        /** Every rank completed in {@code epoch}: the rank may exit. */
        void jobComplete(int epoch);
    }

    private RankControl(int rank, ControlConnection connection, int epoch, Listener listener, Runnable launcherGone) {
        this.launcherGone = launcherGone;
        this.rank = rank;
        this.connection = connection;
        this.epoch = epoch;
        this.listener = java.util.Objects.requireNonNull(listener, "listener");
        this.reader = new Thread(this::read, "jckpt-control-" + rank);
        this.reader.setDaemon(true);
    }

    /**
     * Connects as {@code rank} (bounded) and starts listening. The listener is there before the first
     * frame is read: a RECOVER the launcher sends at once (a rank that joins late hears the recovery
     * it missed) is never lost.
     */
    public static RankControl connect(String host, int port, String jobId, JobSecret secret, int rank, int epoch,
                                      Listener listener) throws IOException {
        return connect(host, port, jobId, secret, rank, epoch, listener, () -> Runtime.getRuntime().halt(EXIT_FAILED));
    }

    /** As above; {@code launcherGone} runs when the control connection ends (a rank halts: no rank outlives its job). */
    static RankControl connect(String host, int port, String jobId, JobSecret secret, int rank, int epoch,
                               Listener listener, Runnable launcherGone) throws IOException {
        RankControl control = new RankControl(rank, ControlClient.connect(host, port, jobId, secret, rank), epoch,
                listener, launcherGone);
        control.reader.start();
        return control;
    }

    /** Connects with what the launcher put in the environment, as a rank of its first world. */
    public static RankControl connect(RankEnvironment env, int rank, Listener listener) throws IOException {
        return connect(env, rank, env.requireInt(RankEnvironment.EPOCH), listener);
    }

    /** Connects with what the launcher put in the environment, as a rank of world {@code epoch}. */
    public static RankControl connect(RankEnvironment env, int rank, int epoch, Listener listener) throws IOException {
        return connect(env.controlHost(), env.controlPort(), env.jobId(), env.secret(), rank, epoch, listener);
    }

    public int rank() {
        return rank;
    }

    /** The epoch (world) this rank is in now. */
    public int epoch() {
        return epoch;
    }

    /**
     * A standby taking over a failed rank: the failure it replaces was detected at {@code nanos} (its
     * assignment's receipt less the age the launcher gave), unless a RECOVER said otherwise since.
     */
    void failureDetected(long nanos) {
        synchronized (worldLock) {
            if (recoverNanos < 0) {
                recoverNanos = nanos;
            }
        }
    }

    /**
     * @return System.nanoTime() when the launcher detected the failure behind the newest order to recover
     *         (its arrival less the age it carried), -1 before one arrived
     */
    public long recoverNanos() {
        return recoverNanos;
    }

    /** Tells the launcher the program is starting. */
    public void ready() {
        send(ControlProtocol.RANK_READY, java.nio.ByteBuffer.allocate(8).putLong(ProcessHandle.current().pid()).array());
    }

    /** Tells the launcher how the program of the current epoch ended (before the process exits). */
    public void exited(int status, String reason) {
        exited(status, reason, epoch);
    }

    /**
     * Tells the launcher how the program of {@code programEpoch} ended. The epoch is the program's
     * own, never the control channel's current one: a RECOVER may arrive between the program's end
     * and this report, and a stale end must not count as a failure of the new world.
     */
    public void exited(int status, String reason, int programEpoch) {
        exited(status, reason, programEpoch, "");
    }

    /** As {@link #exited(int, String, int)}, with the stack trace of what the program threw. */
    public void exited(int status, String reason, int programEpoch, String stackTrace) {
        send(ControlProtocol.RANK_EXIT, new RankExit(status, reason, programEpoch, stackTrace).encode());
    }

    /** Checkpoint progress (see {@link ProgressReporter}). */
    void progress(byte[] payload) {
        send(ControlProtocol.RANK_ROUND, payload);
    }

    /** How long the program thread has waited in {@code call} using no CPU (0: it no longer waits). */
    void waiting(long millis, String call) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeLong(millis);
            out.writeUTF(call.length() > 1000 ? call.substring(0, 1000) : call);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // in memory
        }
        send(ControlProtocol.RANK_WAIT, bytes.toByteArray());
    }

    /** Alive. */
    void heartbeat() {
        send(ControlProtocol.HEARTBEAT, new byte[0]);
    }

    /** An event for the launcher's event log. */
    public void event(io.jckpt.spi.RankEvent event) {
        send(ControlProtocol.RANK_EVENT, io.jckpt.spi.RankEventCodec.encode(event));
    }

    /**
     * Typed allgather through the launcher for a caller of world {@code callerEpoch}: every rank of
     * that world calls it the same number of times in the same order with the same {@link Collective}s;
     * bounded by {@code timeout} (the launcher fails the exchange on every rank when it is not complete
     * by then, and this rank gives up a little later if the launcher's word does not come).
     *
     * <p>A caller of an abandoned world (a thread of the program's previous world) fails at once and
     * takes no sequence number of the current world: its contribution can never be counted in the new
     * world's exchanges.
     *
     * @throws WorldAbandonedError when {@code callerEpoch} is not the current world
     * @throws ExchangeFailedException when ranks called different collectives or some did not arrive
     * @throws TimeoutException when neither the result nor the launcher's verdict came in time
     */
    public byte[][] allgather(int callerEpoch, Collective call, byte[] mine, Duration timeout)
            throws TimeoutException, IOException {
        if (mine.length > ControlProtocol.MAX_EXCHANGE_BYTES) {
            throw new IllegalArgumentException("status of " + mine.length + " bytes exceeds "
                    + ControlProtocol.MAX_EXCHANGE_BYTES);
        }
        long seq;
        CompletableFuture<byte[][]> result = new CompletableFuture<>();
        synchronized (worldLock) {
            if (callerEpoch != epoch) {
                throw new WorldAbandonedError("rank " + rank + ": a thread of MPJ world " + callerEpoch + " called "
                        + call.describe() + " in world " + epoch + ", which replaced it after a failure");
            }
            seq = ++sequence;
            exchanges.put(seq, result);
            // sent under the lock: a RECOVER cannot slip between numbering and sending
            connection.send(ControlProtocol.EXCHANGE, new ExchangeFrames.Contribution(callerEpoch, seq, call,
                    timeout.toMillis(), mine).encode());
        }
        try {
            return result.get(timeout.toNanos() + VERDICT_GRACE_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during " + call.describe() + " (exchange " + seq + ")", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ExchangeFailedException failed) {
                throw failed;
            }
            if (e.getCause() instanceof WorldAbandonedError abandoned) {
                throw new WorldAbandonedError("rank " + rank + ": " + call.describe() + " of MPJ world " + callerEpoch
                        + " ended: " + abandoned.getMessage());
            }
            throw new IOException(call.describe() + " (exchange " + seq + ") failed: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new TimeoutException(call.describe() + " (exchange " + seq + ") of rank " + rank
                    + " not complete after " + timeout.toMillis() + " ms, and the launcher did not say why");
        } finally {
            exchanges.remove(seq);
        }
    }

    /**
     * Runs {@code action} once world {@code worldEpoch} is abandoned (a RECOVER to a newer epoch arrived),
     * on the control reader thread, right after that world's exchanges failed and before the rank is told
     * to start the new world's program; at once (on this thread) when it already is.
     *
     * @param worldEpoch the world the caller belongs to
     * @param action     what ends that world's waits; must not block
     * @return the registration; closing it drops the action
     */
    public io.jckpt.spi.RankCollective.Registration onAbandoned(int worldEpoch, Runnable action) {
        java.util.Objects.requireNonNull(action, "action");
        Abandonment a = new Abandonment(worldEpoch, action);
        synchronized (worldLock) {
            if (worldEpoch >= epoch) {
                onAbandoned.add(a);
                return () -> {
                    synchronized (worldLock) {
                        onAbandoned.remove(a);
                    }
                };
            }
        }
        action.run();
        return () -> { };
    }

    /**
     * @return what the launcher said of the last exchange of the current world that failed, or
     *         {@code null}
     */
    public String failure() {
        ExchangeFrames.Failed failed = lastFailure();
        return failed != null ? failed.message() : null;
    }

    /** @return the last exchange of the current world that the launcher failed, or {@code null} */
    public ExchangeFrames.Failed lastFailure() {
        ExchangeFrames.Failed failed = lastFailure;
        return failed != null && failed.epoch() == epoch ? failed : null;
    }

    /** An exchange the launcher failed on every rank. */
    public static final class ExchangeFailedException extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient ExchangeFrames.Failed failed;

        ExchangeFailedException(ExchangeFrames.Failed failed) {
            super(failed.message());
            this.failed = failed;
        }

        /** @return what the launcher said */
        public ExchangeFrames.Failed failed() {
            return failed;
        }
    }

    private void read() {
        String why = "the launcher closed the control connection";
        java.util.List<Runnable> abandoned = new java.util.ArrayList<>();
        try {
            for (byte[] frame = connection.receive(); frame != null; frame = connection.receive()) {
                lastHeardNanos = System.nanoTime();
                byte type = frame[0];
                byte[] payload = java.util.Arrays.copyOfRange(frame, 1, frame.length);
                if (type == ControlProtocol.SHUTDOWN) {
                    why = "the launcher asked to stop";
                    break;
                }
                if (type == ControlProtocol.RECOVER) {
                    RecoverFrame recover = RecoverFrame.decode(payload);
                    synchronized (worldLock) {
                        if (recover.epoch() <= epoch) {
                            continue; // already in that world (the launcher may tell a late rank twice)
                        }
                        epoch = recover.epoch();
                        // the launcher detected the failure this long before it sent the order
                        recoverNanos = System.nanoTime() - recover.failureAgeMicros() * 1000;
                        sequence = 0; // exchanges are numbered per world: a re-spawned rank starts at 1 too
                        // exchanges of the abandoned world can never complete
                        exchanges.values().forEach(f -> f.completeExceptionally(
                                new WorldAbandonedError("world abandoned for epoch " + recover.epoch())));
                        exchanges.clear();
                        for (java.util.Iterator<Abandonment> it = onAbandoned.iterator(); it.hasNext(); ) {
                            Abandonment a = it.next();
                            if (a.epoch < epoch) {
                                abandoned.add(a.action);
                                it.remove();
                            }
                        }
                    }
                    // the abandoned worlds' other waits (data channels) end too: none holds up the new world
                    for (Runnable action : abandoned) {
                        try {
                            action.run();
                        } catch (RuntimeException e) {
                            System.err.println("rank " + rank + ": ending the waits of an abandoned world failed: " + e);
                        }
                    }
                    abandoned.clear();
                    listener.recover(recover);
                    continue;
                }
                if (type == ControlProtocol.PING) {
                    heartbeat(); // the launcher asks whether this rank's host lives
                    continue;
                }
                if (type == ControlProtocol.JOB_COMPLETE) {
                    listener.jobComplete(java.nio.ByteBuffer.wrap(payload).getInt());
                    continue;
                }
                if (type == ControlProtocol.EXCHANGE_FAILED) {
                    ExchangeFrames.Failed failed = ExchangeFrames.Failed.decode(payload);
                    if (failed.epoch() == epoch) {
                        lastFailure = failed;
                        CompletableFuture<byte[][]> f = exchanges.get(failed.sequence());
                        if (f != null) {
                            f.completeExceptionally(new ExchangeFailedException(failed));
                        }
                    }
                    continue;
                }
                if (type == ControlProtocol.EXCHANGE_RESULT) {
                    ExchangeFrames.Result result = ExchangeFrames.Result.decode(payload);
                    if (result.epoch() == epoch) {
                        CompletableFuture<byte[][]> f = exchanges.get(result.sequence());
                        if (f != null) {
                            f.complete(result.all());
                        }
                    }
                }
            }
        } catch (IOException e) {
            why = "the control connection failed: " + e.getMessage();
        }
        launcherLost(why);
    }

    /** @return how long nothing came from the launcher, at {@code nowNanos} (the launcher answers heartbeats) */
    long launcherSilentNanos(long nowNanos) {
        return nowNanos - lastHeardNanos;
    }

    /**
     * The launcher is gone (the connection ended, or it was silent past the launcher timeout): this
     * rank halts, since the launcher may have declared it failed and replaced it. Once: a second
     * caller returns (the first halts the JVM).
     */
    void launcherLost(String why) {
        if (!lost.compareAndSet(false, true)) {
            return;
        }
        System.err.println("rank " + rank + ": stopping: " + why);
        System.err.flush();
        TestHooks.beforeHalt(rank, epoch);
        launcherGone.run();
    }

    private void send(byte type, byte[] payload) {
        try {
            connection.send(type, payload);
        } catch (IOException e) {
            // the launcher is gone; the reader halts this rank
        }
    }
}
