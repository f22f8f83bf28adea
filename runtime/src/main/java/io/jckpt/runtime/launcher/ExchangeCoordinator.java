package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.spi.Collective;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The launcher's side of the ranks' typed collectives: collects one contribution per rank for each
 * (epoch, sequence) and, once all have arrived, sends every rank the full set. Every contribution
 * says which {@link Collective} its rank called; the first one that differs from the others' fails
 * the exchange on every rank at once ({@link ControlProtocol#EXCHANGE_FAILED}, naming the ranks and
 * their calls), and so does an exchange still incomplete when the first contributor's timeout
 * passed ({@link #expireOverdue}, naming the ranks that did not arrive and what the others called).
 * Contributions of an older epoch (a world abandoned after a failure) are dropped, so stale ranks
 * can never complete an exchange of the current world. Thread-safe.
 */
final class ExchangeCoordinator {
    private final int worldSize;
    private final IntFunction<ControlChannel> connections;
    private final Map<Long, Pending> pending = new HashMap<>();
    private int epoch;

    /** One exchange in progress: each rank's bytes and call, and the first call (the one all must make). */
    private static final class Pending {
        final byte[][] slots;
        final Collective[] calls;
        final Collective first;
        final long deadlineNanos;
        int arrived;

        Pending(int worldSize, Collective first, long deadlineNanos) {
            this.slots = new byte[worldSize][];
            this.calls = new Collective[worldSize];
            this.first = first;
            this.deadlineNanos = deadlineNanos;
        }

        /** @return the calls that arrived, by rank */
        Map<Integer, Collective> arrivedCalls() {
            Map<Integer, Collective> byRank = new TreeMap<>();
            for (int r = 0; r < calls.length; r++) {
                if (calls[r] != null) {
                    byRank.put(r, calls[r]);
                }
            }
            return byRank;
        }
    }

    ExchangeCoordinator(int worldSize, IntFunction<ControlChannel> connections) {
        this.worldSize = worldSize;
        this.connections = connections;
    }

    /** A new world starts: exchanges of older epochs are void. */
    synchronized void startEpoch(int newEpoch) {
        epoch = newEpoch;
        epochStartNanos = System.nanoTime();
        pending.clear();
    }

    /**
     * A contribution of the abandoned world that was on its way when the recovery began (within
     * {@link #IN_FLIGHT_MILLIS}): routine, so its problem line starts with {@link #IN_FLIGHT} and goes
     * to the events file only. Later ones (a rank that missed its fence) are warnings.
     */
    static final String IN_FLIGHT = "in flight when the recovery began: ";
    static final long IN_FLIGHT_MILLIS = 2_000;
    private long epochStartNanos = System.nanoTime();

    /** Records a contribution; returns a problem description for the launcher's log, or {@code null}. */
    String contribute(int rank, ExchangeFrames.Contribution contribution) {
        return contribute(rank, contribution, System.nanoTime());
    }

    String contribute(int rank, ExchangeFrames.Contribution contribution, long nowNanos) {
        byte[] message;
        byte type;
        String problem = null;
        synchronized (this) {
            if (contribution.epoch() != epoch) {
                boolean inFlight = contribution.epoch() < epoch
                        && nowNanos - epochStartNanos < IN_FLIGHT_MILLIS * 1_000_000L;
                return (inFlight ? IN_FLIGHT : "") + "rank " + rank + " contributed to an exchange of epoch "
                        + contribution.epoch()
                        + " (current " + epoch + "): dropped";
            }
            Pending p = pending.computeIfAbsent(contribution.sequence(), s -> new Pending(worldSize, contribution.call(),
                    nowNanos + Math.max(0, contribution.timeoutMillis()) * 1_000_000L));
            if (p.slots[rank] != null) {
                return "rank " + rank + " contributed twice to exchange " + contribution.sequence();
            }
            p.slots[rank] = contribution.bytes();
            p.calls[rank] = contribution.call();
            p.arrived++;
            // each contribution is compared with the first (O(1)); the whole picture only for the error
            String mismatch = p.first.equals(contribution.call()) ? null : Collective.mismatch(p.arrivedCalls());
            if (mismatch != null) {
                pending.remove(contribution.sequence());
                problem = "collective exchange #" + contribution.sequence() + " of epoch " + epoch + " failed: "
                        + mismatch;
                type = ControlProtocol.EXCHANGE_FAILED;
                message = new ExchangeFrames.Failed(epoch, contribution.sequence(), true, List.of(), mismatch).encode();
            } else {
                if (p.arrived < worldSize) {
                    return null;
                }
                pending.remove(contribution.sequence());
                type = ControlProtocol.EXCHANGE_RESULT;
                message = new ExchangeFrames.Result(epoch, contribution.sequence(), p.slots).encode();
            }
        }
        sendToAll(type, message);
        return problem;
    }

    /**
     * Fails, on every rank, the exchanges of the current epoch still incomplete after their first
     * contributor's timeout. Called by the supervisor's poll.
     *
     * @return one line per failed exchange, for the launcher's log (empty: none)
     */
    List<String> expireOverdue(long nowNanos) {
        List<byte[]> messages = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<Long, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Pending> e = it.next();
                Pending p = e.getValue();
                if (nowNanos - p.deadlineNanos < 0) {
                    continue;
                }
                it.remove();
                List<Integer> missing = new ArrayList<>();
                for (int r = 0; r < worldSize; r++) {
                    if (p.slots[r] == null) {
                        missing.add(r);
                    }
                }
                Collective call = p.first;
                String text = Collective.describeRanks(missing) + " did not call " + call.describe() + " in time, which "
                        + Collective.describeRanks(new ArrayList<>(p.arrivedCalls().keySet())) + " called";
                problems.add("collective exchange #" + e.getKey() + " of epoch " + epoch + " failed: " + text);
                messages.add(new ExchangeFrames.Failed(epoch, e.getKey(), false, missing, text).encode());
            }
        }
        for (byte[] message : messages) {
            sendToAll(ControlProtocol.EXCHANGE_FAILED, message);
        }
        return problems;
    }

    private void sendToAll(byte type, byte[] message) {
        for (int r = 0; r < worldSize; r++) {
            ControlChannel connection = connections.apply(r);
            if (connection != null) {
                try {
                    connection.send(type, message);
                } catch (IOException e) {
                    // that rank is gone; the supervisor handles its death
                }
            }
        }
    }
}
