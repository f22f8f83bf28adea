package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.RankExit;

/** What the job's supervisor loop reacts to; produced by reaper, control and signal threads. */
sealed interface JobEvent {
    /** A rank process (or the multicore JVM) is gone. */
    record HostExited(RankHost host, int status) implements JobEvent {
    }

    /** A rank authenticated on the control channel. */
    record RankConnected(int rank) implements JobEvent {
    }

    /** A rank's program is starting (in its current epoch). */
    record RankReady(int rank) implements JobEvent {
    }

    /** A warm standby finished warming up and waits for a rank. */
    record StandbyReady(int id, long warmNanos) implements JobEvent {
    }

    /** A rank said how its program ended (before its process exits). */
    record RankReported(int rank, RankExit exit) implements JobEvent {
    }

    /**
     * A host's verdict that came after the recovery that asked went on without it ({@link HostCheck}):
     * {@code alive}, or lost for {@code why}.
     */
    record HostVerdict(String host, boolean alive, String why) implements JobEvent {
    }

    /** The kill of a failed rank's process on its host ended ({@link RankLauncher#killCommand}). */
    record RemoteKill(int rank, String host, long pid, RemoteCalls.Ended ended) implements JobEvent {
    }
}
