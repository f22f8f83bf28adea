package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The launcher's side of the ranks' status exchange: collects one contribution per rank for each
 * (epoch, sequence) and, once all have arrived, sends every rank the full set. Contributions of an
 * older epoch (a world abandoned after a failure) are dropped, so stale ranks can never complete an
 * exchange of the current world. Thread-safe.
 */
final class ExchangeCoordinator {
    private final int worldSize;
    private final IntFunction<ControlConnection> connections;
    private final Map<Long, byte[][]> pending = new HashMap<>();
    private int epoch;

    ExchangeCoordinator(int worldSize, IntFunction<ControlConnection> connections) {
        this.worldSize = worldSize;
        this.connections = connections;
    }

    /** A new world starts: exchanges of older epochs are void. */
    synchronized void startEpoch(int newEpoch) {
        epoch = newEpoch;
        pending.clear();
    }

    /** Records a contribution; returns a problem description, or {@code null}. */
    String contribute(int rank, ExchangeFrames.Contribution contribution) {
        byte[][] complete;
        synchronized (this) {
            if (contribution.epoch() != epoch) {
                return "rank " + rank + " contributed to an exchange of epoch " + contribution.epoch()
                        + " (current " + epoch + "): dropped";
            }
            byte[][] slots = pending.computeIfAbsent(contribution.sequence(), s -> new byte[worldSize][]);
            if (slots[rank] != null) {
                return "rank " + rank + " contributed twice to exchange " + contribution.sequence();
            }
            slots[rank] = contribution.bytes();
            for (byte[] slot : slots) {
                if (slot == null) {
                    return null;
                }
            }
            pending.remove(contribution.sequence());
            complete = slots;
        }
        byte[] result = new ExchangeFrames.Result(contribution.epoch(), contribution.sequence(), complete).encode();
        for (int r = 0; r < worldSize; r++) {
            ControlConnection connection = connections.apply(r);
            if (connection != null) {
                try {
                    connection.send(ControlProtocol.EXCHANGE_RESULT, result);
                } catch (IOException e) {
                    // that rank is gone; the supervisor handles its death
                }
            }
        }
        return null;
    }
}
