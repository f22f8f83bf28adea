package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.RankExit;
import io.jckpt.runtime.control.RecoverFrame;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rank's end of the control channel: reports to the launcher, takes part in status exchanges
 * through it, and halts the rank when the launcher says so or disappears (no rank outlives its
 * job). Owns one daemon reader thread.
 */
public final class RankControl {
    private static final int EXIT_FAILED = 1;

    private final int rank;
    private final ControlConnection connection;
    private final Thread reader;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<Long, CompletableFuture<byte[][]>> exchanges = new ConcurrentHashMap<>();
    private volatile int epoch;
    private volatile Listener listener;

    /** What the launcher tells a rank besides exchange results; called on the reader thread. */
    public interface Listener {
        /** Abandon the current world and re-enter the program in a new one. */
        void recover(RecoverFrame frame);

        /** Every rank completed in {@code epoch}: the rank may exit. */
        void jobComplete(int epoch);
    }

    private RankControl(int rank, ControlConnection connection, int epoch) {
        this.rank = rank;
        this.connection = connection;
        this.epoch = epoch;
        this.reader = new Thread(this::read, "jckpt-control-" + rank);
        this.reader.setDaemon(true);
    }

    /** Connects as {@code rank} (bounded) and starts listening. */
    public static RankControl connect(String host, int port, String jobId, JobSecret secret, int rank, int epoch)
            throws IOException {
        RankControl control = new RankControl(rank, ControlClient.connect(host, port, jobId, secret, rank), epoch);
        control.reader.start();
        return control;
    }

    /** Connects with what the launcher put in the environment. */
    public static RankControl connect(RankEnvironment env, int rank) throws IOException {
        return connect(env, rank, env.requireInt(RankEnvironment.EPOCH));
    }

    /** Connects with what the launcher put in the environment, as a rank of world {@code epoch}. */
    public static RankControl connect(RankEnvironment env, int rank, int epoch) throws IOException {
        return connect(env.controlHost(), env.controlPort(), env.jobId(), env.secret(), rank, epoch);
    }

    public int rank() {
        return rank;
    }

    /** The epoch (world) this rank is in now. */
    public int epoch() {
        return epoch;
    }

    /** Sets who hears RECOVER and JOB_COMPLETE. */
    public void listener(Listener newListener) {
        this.listener = newListener;
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

    /** Alive. */
    void heartbeat() {
        send(ControlProtocol.HEARTBEAT, new byte[0]);
    }

    /** A line for the launcher's event log. */
    public void event(String text) {
        send(ControlProtocol.RANK_EVENT, ControlConnection.utf(text));
    }

    /**
     * Allgather through the launcher: every rank of the current epoch calls it the same number of
     * times in the same order; bounded by {@code timeout}.
     *
     * @throws TimeoutException when not every rank contributed in time
     */
    public byte[][] allgather(byte[] mine, Duration timeout) throws TimeoutException, IOException {
        if (mine.length > ControlProtocol.MAX_EXCHANGE_BYTES) {
            throw new IllegalArgumentException("status of " + mine.length + " bytes exceeds "
                    + ControlProtocol.MAX_EXCHANGE_BYTES);
        }
        long seq = sequence.incrementAndGet();
        CompletableFuture<byte[][]> result = exchanges.computeIfAbsent(seq, s -> new CompletableFuture<>());
        try {
            connection.send(ControlProtocol.EXCHANGE, new ExchangeFrames.Contribution(epoch, seq, mine).encode());
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during status exchange " + seq, e);
        } catch (ExecutionException e) {
            throw new IOException("status exchange " + seq + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new TimeoutException("status exchange " + seq + " of rank " + rank + " not complete after "
                    + timeout.toMillis() + " ms: not every rank contributed");
        } finally {
            exchanges.remove(seq);
        }
    }

    private void read() {
        String why = "the launcher closed the control connection";
        try {
            for (byte[] frame = connection.receive(); frame != null; frame = connection.receive()) {
                byte type = frame[0];
                byte[] payload = java.util.Arrays.copyOfRange(frame, 1, frame.length);
                if (type == ControlProtocol.SHUTDOWN) {
                    why = "the launcher asked to stop";
                    break;
                }
                if (type == ControlProtocol.RECOVER) {
                    RecoverFrame recover = RecoverFrame.decode(payload);
                    if (recover.epoch() <= epoch) {
                        continue; // already in that world (the launcher may tell a late rank twice)
                    }
                    epoch = recover.epoch();
                    sequence.set(0); // exchanges are numbered per world: a re-spawned rank starts at 1 too
                    // exchanges of the abandoned world can never complete
                    exchanges.values().forEach(f -> f.completeExceptionally(
                            new IOException("world abandoned for epoch " + recover.epoch())));
                    Listener current = listener;
                    if (current != null) {
                        current.recover(recover);
                    }
                    continue;
                }
                if (type == ControlProtocol.JOB_COMPLETE) {
                    Listener current = listener;
                    if (current != null) {
                        current.jobComplete(java.nio.ByteBuffer.wrap(payload).getInt());
                    }
                    continue;
                }
                if (type == ControlProtocol.EXCHANGE_RESULT) {
                    ExchangeFrames.Result result = ExchangeFrames.Result.decode(payload);
                    if (result.epoch() == epoch) {
                        exchanges.computeIfAbsent(result.sequence(), s -> new CompletableFuture<>()).complete(result.all());
                    }
                }
            }
        } catch (IOException e) {
            why = "the control connection failed: " + e.getMessage();
        }
        System.err.println("rank " + rank + ": stopping: " + why);
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_FAILED);
    }

    private void send(byte type, byte[] payload) {
        try {
            connection.send(type, payload);
        } catch (IOException e) {
            // the launcher is gone; the reader halts this rank
        }
    }
}
