package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.runtime.control.RankExit;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The launcher's end of the ranks' control channels: what the control reader threads hear, kept
 * for the supervisor (each rank's connection, when it was last heard, its newest checkpoint round,
 * how its program ended) and turned into {@link JobEvent}s for decisions. Exchange contributions go
 * to the job's {@link ExchangeCoordinator}, standby frames to the {@link StandbyPool}. Thread-safe:
 * written by the reader threads, read by the supervisor.
 */
final class RankChannels implements ControlListener {
    private final Map<Integer, ControlChannel> controls = new ConcurrentHashMap<>();
    private final Map<Integer, RankExit> reports = new ConcurrentHashMap<>();
    private final Map<Integer, Long> lastHeard = new ConcurrentHashMap<>();
    private final Map<Integer, RankProgress> progress = new ConcurrentHashMap<>();
    private final DeadlockWatch waits = new DeadlockWatch();
    /** Each connection's process id as its rank said (RANK_READY): on a remote host, the id there. */
    private final Map<ControlChannel, Long> pids = new ConcurrentHashMap<>();
    /** The recovery's check of hosts, while one waits for answers; hears every frame. */
    private volatile HostCheck watching;
    private final ExchangeCoordinator exchanges;
    private final StandbyPool standbys;
    private final JobConsole console;
    private final Consumer<JobEvent> events;
    private final String jobSettings;

    /**
     * @param jobSettings the launcher's settings line, to which rank 0's is compared
     */
    RankChannels(int worldSize, StandbyPool standbys, JobConsole console, Consumer<JobEvent> events, String jobSettings) {
        this.jobSettings = jobSettings;
        this.exchanges = new ExchangeCoordinator(worldSize, controls::get);
        this.standbys = standbys;
        this.console = console;
        this.events = events;
    }

    /** @return the coordinator of the ranks' exchanges over these channels */
    ExchangeCoordinator exchanges() {
        return exchanges;
    }

    /** @return {@code rank}'s connection, or {@code null} while it has none */
    ControlChannel control(int rank) {
        return controls.get(rank);
    }

    /** @return the connected ranks and their connections (a live view) */
    Map<Integer, ControlChannel> controls() {
        return controls;
    }

    /** @return how {@code rank}'s program said it ended (newest report), or {@code null} */
    RankExit report(int rank) {
        return reports.get(rank);
    }

    /** @return the process id {@code rank}'s current connection reported (on its own host), or {@code null} */
    Long pid(int rank) {
        ControlChannel connection = controls.get(rank);
        return connection == null ? null : pids.get(connection);
    }

    /** From now on every frame heard is also told to {@code check} ({@code null}: to none). */
    void watch(HostCheck check) {
        this.watching = check;
    }

    /** {@code rank} was (re)started now: its silence counts from here. */
    void heard(int rank) {
        lastHeard.put(rank, System.nanoTime());
    }

    /** @return when {@code rank} was last heard from, {@code orElse} when never */
    long lastHeardNanos(int rank, long orElse) {
        return lastHeard.getOrDefault(rank, orElse);
    }

    /** The ranks' waits in communication calls, for the supervisor's deadlock check. */
    DeadlockWatch waits() {
        return waits;
    }

    /** @return {@code rank}'s newest checkpoint round report in its current program run, or {@code null} */
    RankProgress progress(int rank) {
        return progress.get(rank);
    }

    /** @return the newest checkpoint round any rank reported, 0 when none did */
    long newestRound() {
        return progress.values().stream().mapToLong(RankProgress::round).max().orElse(0);
    }

    @Override
    public void connected(int rank, ControlChannel connection) {
        if (rank < 0) {
            standbys.connected(ControlProtocol.STANDBY_CLAIM_BASE - rank, connection);
            return;
        }
        // its silence counts from here, not from its start: a JVM started through a slow remote shell
        // on a loaded host may connect seconds after it was spawned (its start is bounded by the start timeout)
        lastHeard.put(rank, System.nanoTime());
        controls.put(rank, connection);
        events.accept(new JobEvent.RankConnected(rank));
    }

    @Override
    public void frame(int rank, byte type, byte[] payload) {
        HostCheck check = watching;
        if (check != null) {
            check.heard(rank); // a rank's or a standby's claim: its host lives
        }
        if (rank < 0) {
            int id = ControlProtocol.STANDBY_CLAIM_BASE - rank;
            long warmNanos = standbys.frame(id, type, payload);
            if (warmNanos >= 0) {
                events.accept(new JobEvent.StandbyReady(id, warmNanos));
            }
            return;
        }
        lastHeard.put(rank, System.nanoTime());
        try {
            if (type == ControlProtocol.RANK_ROUND) {
                RankProgress reported = RankProgress.decode(payload);
                progress.put(rank, reported);
                console.event(LauncherEvents.checkpoint(rank, reported));
            } else if (type == ControlProtocol.RANK_READY) {
                // its program (re)starts: rounds it reported before belong to an abandoned world
                // (frames of one connection arrive in order)
                progress.remove(rank);
                waits.forget(rank);
                ControlChannel connection = controls.get(rank);
                if (connection != null && payload.length >= 8) {
                    pids.put(connection, java.nio.ByteBuffer.wrap(payload).getLong());
                }
                events.accept(new JobEvent.RankReady(rank));
            } else if (type == ControlProtocol.RANK_EXIT) {
                RankExit exit = RankExit.decode(payload);
                reports.put(rank, exit);
                events.accept(new JobEvent.RankReported(rank, exit));
            } else if (type == ControlProtocol.EXCHANGE) {
                String problem = exchanges.contribute(rank, ExchangeFrames.Contribution.decode(payload));
                if (problem != null && problem.startsWith(ExchangeCoordinator.IN_FLIGHT)) {
                    console.event(ReportedEvent.of("message", "", "text", problem)); // the events file only
                } else if (problem != null) {
                    console.event((problem.startsWith("collective") ? "ERROR: " : "WARNING: ") + problem);
                }
            } else if (type == ControlProtocol.HEARTBEAT) {
                // answered, so that a rank on another host knows its launcher lives (it halts when
                // the answers stop: a partition); sent on this rank's own reader thread
                ControlChannel connection = controls.get(rank);
                if (connection != null) {
                    try {
                        connection.send(ControlProtocol.HEARTBEAT, new byte[0]);
                    } catch (IOException e) {
                        // that rank is gone: its exit or the detector says so
                    }
                }
            } else if (type == ControlProtocol.RANK_WAIT) {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
                long millis = in.readLong();
                waits.report(rank, millis, in.readUTF(), System.nanoTime());
            } else if (type == ControlProtocol.RANK_EVENT) {
                console.event(LauncherEvents.rankEvent(rank, io.jckpt.spi.RankEventCodec.decode(payload), jobSettings));
            }
        } catch (IOException e) {
            console.event("WARNING: malformed control frame from rank " + rank + ": " + e.getMessage());
        }
    }

    @Override
    public void disconnected(int rank, ControlChannel connection) {
        if (rank >= 0) {
            controls.remove(rank, connection);
            pids.remove(connection);
        } // a standby's connection ends when it becomes a rank or dies (its process exit says which)
    }
}
