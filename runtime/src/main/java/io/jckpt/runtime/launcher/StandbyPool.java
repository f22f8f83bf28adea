package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The launcher's warm standby JVMs (see {@code io.jckpt.runtime.rank.Standby}): started, heard
 * from, handed out to replace failed ranks, replaced, and stopped at the job's end. Decisions
 * happen on the job's supervisor thread; the control reader threads only record connections and
 * heartbeats.
 *
 * <p>Standbys are kept per host: on the launcher's host ({@code null}) when every rank runs there,
 * else on every job host and spare host, each started through the remote shell like a rank. A failed
 * rank takes a standby of the host it restarts on ({@link #take(String)}); a used standby is replaced
 * on its own host; none is started on a host the job found lost.
 */
final class StandbyPool {
    /** A standby not heard from for this long is not trusted with a rank (it heartbeats every second). */
    static final long STALE_MILLIS = 5_000;
    /** Standbys of one host that die before being used, after which the job stops starting them there. */
    static final int MAX_LOSSES = 3;
    /**
     * A remote standby whose agent exits with the remote shell's own failure (the host or the session
     * is gone) is started again this much later, so that a recovery can find its host lost first.
     */
    static final long REMOTE_RETRY_MILLIS = 2_000;
    private static final long TEARDOWN_MILLIS = 2_000;
    /**
     * How long a remote standby may take to halt once its control connection is closed at the job's end
     * (one still starting halts when it connects): its host's store directory is removed after that.
     */
    private static final long REMOTE_STOP_MILLIS = 5_000;
    private static final long DRAIN_MILLIS = 1_000;

    /** Starts the JVM of standby {@code id} on {@code host} ({@code null}: the launcher's host). */
    interface Starter {
        RankHost start(int id, String host) throws IOException;
    }

    /** One standby JVM: not a rank until it is assigned one. */
    static final class Standby {
        final int id;
        /** Its host as the mapping names it; {@code null} on the launcher's host. */
        final String hostName;
        /** Its process (for a remote standby: the remote shell's agent). */
        final RankHost host;
        volatile ControlChannel connection;
        volatile boolean ready;
        volatile long lastHeardNanos = System.nanoTime();

        Standby(int id, String hostName, RankHost host) {
            this.id = id;
            this.hostName = hostName;
            this.host = host;
        }

        /** " on HOST" for a remote standby, else "". */
        String where() {
            return hostName == null ? "" : " on " + hostName;
        }
    }

    /** A standby to start on {@code host} once due. */
    private record Owed(String host, long notBeforeNanos, BooleanSupplier early) {
        boolean due(long now) {
            return now >= notBeforeNanos || early.getAsBoolean();
        }
    }

    private final Starter starter;
    private final JobConsole console;
    private final List<String> hosts;
    private final Predicate<String> hostLives;
    private final Map<Integer, Standby> standbys = new ConcurrentHashMap<>();
    // supervisor-thread state
    private final List<Owed> owed = new ArrayList<>();
    /** The hosts of the standbys handed out since the last {@link #oweTaken}. */
    private final List<String> taken = new ArrayList<>();
    /** Standbys lost before use, per host (a HashMap: the launcher's host is the null key). */
    private final Map<String, Integer> losses = new HashMap<>();
    private int nextId;
    private volatile boolean stopped;

    /**
     * @param hosts     where standbys run: {@code [null]} for the launcher's host, else host names
     * @param hostLives whether a host may still get standbys (not found lost)
     */
    StandbyPool(Starter starter, JobConsole console, List<String> hosts, Predicate<String> hostLives) {
        this.starter = starter;
        this.console = console;
        this.hosts = Collections.unmodifiableList(new ArrayList<>(hosts));
        this.hostLives = hostLives;
    }

    /** Where a job's standbys run: the launcher's host ({@code null}), or every job host and spare host. */
    static List<String> hostsOf(LaunchSpec spec) {
        if (!spec.remote()) {
            return Collections.singletonList(null);
        }
        List<String> names = new ArrayList<>(spec.mapping().hostNames());
        spec.mapping().spares().forEach(h -> {
            if (!names.contains(h.name())) {
                names.add(h.name());
            }
        });
        return names;
    }

    /**
     * @return the connected standbys of each remote host, by their claim on the control channel
     *         ({@link ControlProtocol#STANDBY_CLAIM_BASE} - id): what a check of hosts can ping
     */
    Map<String, Map<Integer, ControlChannel>> connectionsByHost() {
        Map<String, Map<Integer, ControlChannel>> byHost = new HashMap<>();
        for (Standby standby : standbys.values()) {
            ControlChannel connection = standby.connection;
            if (standby.hostName != null && connection != null) {
                byHost.computeIfAbsent(standby.hostName, h -> new HashMap<>())
                        .put(ControlProtocol.STANDBY_CLAIM_BASE - standby.id, connection);
            }
        }
        return byHost;
    }

    /** @return the hosts standbys run on ({@code [null]}: the launcher's host) */
    List<String> hosts() {
        return hosts;
    }

    /**
     * Owes {@code perHost} more standbys on each of its hosts, to be started from
     * {@code notBeforeNanos} on, or as soon as {@code early} says so.
     */
    void owe(int perHost, long notBeforeNanos, BooleanSupplier early) {
        for (String host : hosts) {
            for (int i = 0; i < perHost; i++) {
                owed.add(new Owed(host, notBeforeNanos, early));
            }
        }
    }

    /**
     * Owes a replacement for every standby handed out since the last call, on the host it was on, to
     * be started from {@code notBeforeNanos} on or as soon as {@code early} says so.
     */
    void oweTaken(long notBeforeNanos, BooleanSupplier early) {
        for (String host : taken) {
            owed.add(new Owed(host, notBeforeNanos, early));
        }
        taken.clear();
    }

    /** Starts the owed standbys that are due; drops those of hosts found lost; called by the supervisor loop. */
    void replenish() throws IOException {
        if (owed.isEmpty() || stopped) {
            return;
        }
        long now = System.nanoTime();
        for (Iterator<Owed> it = owed.iterator(); it.hasNext(); ) {
            Owed o = it.next();
            if (!hostLives.test(o.host()) || losses.getOrDefault(o.host(), 0) > MAX_LOSSES) {
                it.remove(); // a lost host, or one whose standbys keep dying, gets no standby again
            } else if (o.due(now)) {
                it.remove();
                int id = nextId++;
                standbys.put(id, new Standby(id, o.host(), starter.start(id, o.host())));
            }
        }
    }

    /**
     * A ready standby of {@code host} ({@code null}: the launcher's host) heard from recently, removed
     * from the pool, or {@code null}; a stale one is stopped (and another owed on its host).
     */
    Standby take(String host) {
        for (Standby standby : new TreeMap<>(standbys).values()) {
            if (!standby.ready || standby.connection == null || !Objects.equals(standby.hostName, host)) {
                continue;
            }
            standbys.remove(standby.id);
            if (!standby.host.isAlive() || System.nanoTime() - standby.lastHeardNanos > STALE_MILLIS * 1_000_000L) {
                console.event("standby " + standby.id + " (pid " + standby.host.pid() + ")" + standby.where()
                        + " silent or gone: not used");
                halt(standby);
                owed.add(new Owed(standby.hostName, 0, () -> true));
                continue;
            }
            taken.add(standby.hostName);
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
            halt(standby);
            standby.host.awaitExit(TEARDOWN_MILLIS);
            return false;
        }
    }

    /**
     * Stops a standby: its control connection closed (a standby halts when it loses the launcher: the
     * only way to stop a remote one, whose agent's death leaves it running) and its process SIGKILLed.
     */
    private static void halt(Standby standby) {
        ControlChannel connection = standby.connection;
        if (connection != null) {
            connection.close();
        }
        standby.host.kill();
    }

    /** Control channel: standby {@code id} connected. */
    void connected(int id, ControlChannel connection) {
        Standby standby = standbys.get(id);
        if (standby == null || stopped) {
            connection.close(); // not one this job started, or one already stopped: it halts
            return;
        }
        standby.connection = connection;
        standby.lastHeardNanos = System.nanoTime();
        if (stopped) {
            connection.close(); // stop() ran meanwhile and saw no connection
        }
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
            console.event(String.format(Locale.ROOT, "standby %d ready (pid %d%s, warmed up in %.0f ms)", id,
                    standby.host.pid(), standby.where(), warmNanos / 1e6));
        }
    }

    /**
     * Supervisor: a process without ranks exited; when it was a standby of the pool, another is started
     * on its host (bounded per host; a remote one lost with its agent's own failure, {@code lostStatus},
     * only after {@link #REMOTE_RETRY_MILLIS} and only if its host is not found lost meanwhile).
     */
    void exited(RankHost host, int status, boolean jobEnding, int lostStatus) throws IOException {
        Standby standby = standbys.values().stream().filter(s -> s.host == host).findFirst().orElse(null);
        if (standby == null) {
            return; // stopped by the launcher (stale, or the job is ending)
        }
        standbys.remove(standby.id);
        if (jobEnding) {
            return;
        }
        int lost = losses.merge(standby.hostName, 1, Integer::sum);
        host.drainOutput(DRAIN_MILLIS);
        String what = "standby " + standby.id + " (pid " + host.pid() + ")" + standby.where() + " "
                + Signals.describeExit(status);
        if (lost > MAX_LOSSES) {
            console.event("WARNING: " + what + "; " + lost + " standbys lost" + (standby.hostName == null ? ""
                    : " on " + standby.hostName) + ": no more standbys" + (standby.hostName == null ? ""
                    : " there") + ", failed ranks are re-spawned");
            return;
        }
        if (!hostLives.test(standby.hostName)) {
            console.event("WARNING: " + what + "; " + standby.hostName + " is lost: no standby there again");
            return;
        }
        if (standby.hostName != null && status == lostStatus) {
            console.event("WARNING: " + what + " (its host or session is gone); starting another in "
                    + REMOTE_RETRY_MILLIS / 1000 + " s unless " + standby.hostName + " is found lost");
            owed.add(new Owed(standby.hostName, System.nanoTime() + REMOTE_RETRY_MILLIS * 1_000_000L, () -> false));
            return;
        }
        console.event("WARNING: " + what + "; starting another");
        owed.add(new Owed(standby.hostName, 0, () -> true));
        replenish();
    }

    /**
     * The job is over: every standby stopped (its control connection closed, which halts a remote one,
     * and its process SIGKILLed), bounded waits. A remote standby's agent is left until its session ends
     * (the remote JVM halted), so that nothing of it outlives the removal of its host's store.
     */
    void stop() {
        stopped = true;
        owed.clear();
        List<Standby> left = new ArrayList<>(standbys.values());
        standbys.clear();
        long deadline = System.nanoTime() + REMOTE_STOP_MILLIS * 1_000_000L;
        for (Standby standby : left) {
            if (standby.hostName == null) {
                standby.host.kill(); // as before hosts: no "stopping" line from a local standby
            } else if (standby.connection != null) {
                standby.connection.close();
            }
        }
        for (Standby standby : left) {
            if (standby.hostName != null) {
                if (!standby.host.awaitExit(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L))) {
                    console.event("WARNING: standby " + standby.id + standby.where() + " did not stop within "
                            + REMOTE_STOP_MILLIS / 1000 + " s; its agent is killed (the standby halts when it"
                            + " finds the launcher gone)");
                }
                halt(standby);
            }
            standby.host.awaitExit(TEARDOWN_MILLIS);
        }
    }
}
