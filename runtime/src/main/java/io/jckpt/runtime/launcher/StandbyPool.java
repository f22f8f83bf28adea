package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The launcher's warm standby JVMs (see {@code io.jckpt.runtime.rank.Standby}): started, heard
 * from, handed out to replace failed ranks, replaced, and stopped at the job's end. Decisions
 * happen on the job's supervisor thread; the control reader threads only record connections and
 * heartbeats.
 */
final class StandbyPool {
    /** A standby not heard from for this long is not trusted with a rank (it heartbeats every second). */
    static final long STALE_MILLIS = 5_000;
    /** Standbys that die before being used, after which the job stops starting them. */
    static final int MAX_LOSSES = 3;
    private static final long TEARDOWN_MILLIS = 2_000;
    private static final long DRAIN_MILLIS = 1_000;

    /** Starts the JVM of standby {@code id}. */
    interface Starter {
        RankHost start(int id) throws IOException;
    }

    /** One standby JVM: not a rank until it is assigned one. */
    static final class Standby {
        final int id;
        final RankHost host;
        volatile ControlConnection connection;
        volatile boolean ready;
        volatile long lastHeardNanos = System.nanoTime();

        Standby(int id, RankHost host) {
            this.id = id;
            this.host = host;
        }
    }

    private final Starter starter;
    private final JobConsole console;
    private final Map<Integer, Standby> standbys = new ConcurrentHashMap<>();
    private int nextId;
    private int losses;
    private int owed;
    private long dueNanos;
    private BooleanSupplier dueEarly = () -> false;

    StandbyPool(Starter starter, JobConsole console) {
        this.starter = starter;
        this.console = console;
    }

    /**
     * Owes {@code count} more standbys, to be started from {@code notBeforeNanos} on, or as soon
     * as {@code early} says so.
     */
    void owe(int count, long notBeforeNanos, BooleanSupplier early) {
        owed += count;
        dueNanos = notBeforeNanos;
        dueEarly = early;
    }

    /** Starts the owed standbys when they are due; called by the supervisor loop. */
    void replenish() throws IOException {
        if (owed == 0 || System.nanoTime() < dueNanos && !dueEarly.getAsBoolean()) {
            return;
        }
        while (owed > 0) {
            owed--;
            int id = nextId++;
            standbys.put(id, new Standby(id, starter.start(id)));
        }
    }

    /** A ready standby heard from recently, removed from the pool, or {@code null}; a stale one is stopped. */
    Standby take() {
        for (Standby standby : new TreeMap<>(standbys).values()) {
            if (!standby.ready || standby.connection == null) {
                continue;
            }
            standbys.remove(standby.id);
            if (!standby.host.isAlive() || System.nanoTime() - standby.lastHeardNanos > STALE_MILLIS * 1_000_000L) {
                console.event("standby " + standby.id + " (pid " + standby.host.pid() + ") silent or gone: not used");
                standby.host.kill();
                owed++;
                continue;
            }
            return standby;
        }
        return null;
    }

    /**
     * Tells {@code standby} to become {@code rank}; {@code false} when it could not be told (it is
     * stopped then).
     */
    static boolean assign(Standby standby, int rank, byte[] recoverFrame) {
        byte[] payload = ByteBuffer.allocate(4 + recoverFrame.length).putInt(rank).put(recoverFrame).array();
        try {
            standby.connection.send(ControlProtocol.ASSIGN, payload);
            return true;
        } catch (IOException e) {
            standby.host.kill();
            standby.host.awaitExit(TEARDOWN_MILLIS);
            return false;
        }
    }

    /** Control channel: standby {@code id} connected. */
    void connected(int id, ControlConnection connection) {
        Standby standby = standbys.get(id);
        if (standby == null) {
            connection.close(); // not one this job started, or one already stopped
            return;
        }
        standby.connection = connection;
        standby.lastHeardNanos = System.nanoTime();
    }

    /** Control channel: a frame from standby {@code id}; returns its warm-up nanos when it says it is ready, else -1. */
    long frame(int id, byte type, byte[] payload) {
        Standby standby = standbys.get(id);
        if (standby == null) {
            return -1;
        }
        standby.lastHeardNanos = System.nanoTime();
        return type == ControlProtocol.STANDBY_READY ? ByteBuffer.wrap(payload).getLong() : -1;
    }

    /** Supervisor: standby {@code id} is ready. */
    void ready(int id, long warmNanos) {
        Standby standby = standbys.get(id);
        if (standby != null) {
            standby.ready = true;
            console.event(String.format(Locale.ROOT, "standby %d ready (pid %d, warmed up in %.0f ms)", id,
                    standby.host.pid(), warmNanos / 1e6));
        }
    }

    /** Supervisor: a host without ranks exited; when it was a standby of the pool, another is started (bounded). */
    void exited(RankHost host, int status, boolean jobEnding) throws IOException {
        Standby standby = standbys.values().stream().filter(s -> s.host == host).findFirst().orElse(null);
        if (standby == null) {
            return; // stopped by the launcher (stale, or the job is ending)
        }
        standbys.remove(standby.id);
        if (jobEnding) {
            return;
        }
        losses++;
        host.drainOutput(DRAIN_MILLIS);
        String what = "standby " + standby.id + " (pid " + host.pid() + ") " + Signals.describeExit(status);
        if (losses > MAX_LOSSES) {
            console.event("WARNING: " + what + "; " + losses + " standbys lost: no more standbys, failed ranks are"
                    + " re-spawned");
            return;
        }
        console.event("WARNING: " + what + "; starting another");
        owed++;
        replenish();
    }

    /** The job is over: every standby SIGKILLed, bounded wait. */
    void stop() {
        owed = 0;
        List<Standby> left = new ArrayList<>(standbys.values());
        standbys.clear();
        for (Standby standby : left) {
            standby.host.kill();
        }
        for (Standby standby : left) {
            standby.host.awaitExit(TEARDOWN_MILLIS);
        }
    }
}
