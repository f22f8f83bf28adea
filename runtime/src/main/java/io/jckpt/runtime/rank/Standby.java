package io.jckpt.runtime.rank;

import io.jckpt.CkptOptions;
import io.jckpt.JobSettings;
import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.RecoverFrame;
import io.jckpt.spi.AgentThreads;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

/**
 * A warm standby: a rank JVM started ahead of any failure, connected to the launcher as standby
 * {@code id}, warmed up ({@link StandbyWarmup}: the library rehearsed, the first MPJ world's class
 * loader filled) without joining any world, then waiting for the launcher to assign it the rank
 * of a failed process. While it waits it writes a heartbeat every
 * {@link ControlProtocol#STANDBY_HEARTBEAT_MILLIS}; it halts when the launcher goes away (the
 * connection ends or a write fails), so it never outlives its job. The launcher's frames are read
 * by an agent ({@link AgentThreads}, thread {@code jckpt-standby-control-ID}) that ends with the
 * assignment.
 */
final class Standby {
    private static final int EXIT_FAILED = 1;

    /** What the launcher assigned: a rank and the world (epoch) to join. */
    record Assignment(int rank, RecoverFrame world, WorldClassLoader loader, ControlConnection standbyConnection,
                      long receivedNanos) {
    }

    private Standby() {
    }

    /** Connects, warms up, says ready, and waits for an assignment; halts the JVM if the launcher goes. */
    static Assignment await(RankEnvironment env, int id, String mainClass, List<String> worldClassPath) {
        ControlConnection connection;
        try {
            connection = ControlClient.connect(env.controlHost(), env.controlPort(), env.jobId(), env.secret(),
                    ControlProtocol.STANDBY_CLAIM_BASE - id);
        } catch (IOException e) {
            System.err.println("standby " + id + ": cannot reach the launcher: " + e.getMessage());
            Runtime.getRuntime().halt(EXIT_FAILED);
            return null;
        }
        CompletableFuture<Assignment> assigned = new CompletableFuture<>();
        WorldClassLoader[] loader = new WorldClassLoader[1];
        AgentThreads.start(new Reader(id, connection, assigned, loader));

        long start = System.nanoTime();
        // under the job's memory directory, as the launcher sees it (its option or the environment), which it removes at the end
        Path memory = JobSettings.of(System.getenv(), new java.util.Properties()).lookup(JobSettings.Setting.MEMORY_DIR)
                .map(v -> Path.of(v.text())).orElseGet(CkptOptions::defaultMemoryDirectory);
        Path scratch = memory.resolve(env.jobId()).resolve("standby-" + id);
        String rehearsal = StandbyWarmup.rehearse(scratch, env.hostAddress());
        if (rehearsal != null) {
            System.err.println("standby " + id + ": library rehearsal incomplete (" + rehearsal + "); waiting anyway");
        }
        WorldClassLoader first = new WorldClassLoader("mpj-world-next", worldClassPath, Standby.class.getClassLoader());
        List<String> names = WorldLoaders.classesIn(env.classPath(RankEnvironment.MPJ_CLASSPATH));
        WorldLoaders.preload(first, names, () -> assigned.isDone());
        WorldLoaders.preload(first, List.of(mainClass), () -> false);
        preloadRankClasses();
        synchronized (loader) {
            loader[0] = first;
        }
        long warmNanos = System.nanoTime() - start;
        try {
            connection.send(ControlProtocol.STANDBY_READY,
                    ByteBuffer.allocate(16).putLong(warmNanos).putLong(ProcessHandle.current().pid()).array());
            for (;;) {
                try {
                    return assigned.get(ControlProtocol.STANDBY_HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    connection.send(ControlProtocol.HEARTBEAT, new byte[0]);
                }
            }
        } catch (IOException | InterruptedException | ExecutionException e) {
            System.err.println("standby " + id + ": stopping: the launcher is gone (" + e.getMessage() + ")");
            Runtime.getRuntime().halt(EXIT_FAILED);
            return null;
        }
    }

    /** The classes the rank path needs first, loaded and initialised while nothing waits for them. */
    /** Loads and initialises the rank-side classes a standby becomes (also the class-data training's). */
    static void preloadRankClasses() {
        for (Class<?> type : List.of(RankControl.class, RuntimeJobServices.class, ProgressReporter.class,
                ProgramRunner.class, RankServices.class, WorldLoaders.class)) {
            try {
                Class.forName(type.getName(), true, Standby.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e); // this jar is broken
            }
        }
    }

    /**
     * Reads the launcher's frames, one per cycle (blocked in the socket's read: the launcher sends
     * only ASSIGN, PING or SHUTDOWN, and its death ends the connection); ends with the assignment, halts
     * the JVM when the launcher says stop or goes away.
     */
    private static final class Reader implements Agent {
        private final int id;
        private final ControlConnection connection;
        private final CompletableFuture<Assignment> assigned;
        private final WorldClassLoader[] loader;

        Reader(int id, ControlConnection connection, CompletableFuture<Assignment> assigned, WorldClassLoader[] loader) {
            this.id = id;
            this.connection = connection;
            this.assigned = assigned;
            this.loader = loader;
        }

        @Override
        public String roleName() {
            return "jckpt-standby-control-" + id;
        }

        @Override
        public int doWork() {
            byte[] frame;
            try {
                frame = connection.receive();
                if (frame == null) {
                    return halt("the launcher closed the control connection");
                }
                byte type = frame[0];
                byte[] payload = Arrays.copyOfRange(frame, 1, frame.length);
                if (type == ControlProtocol.SHUTDOWN) {
                    return halt("the launcher asked to stop");
                }
                if (type == ControlProtocol.PING) {
                    connection.send(ControlProtocol.HEARTBEAT, new byte[0]); // the launcher asks whether this host lives
                    return 1;
                }
                if (type == ControlProtocol.ASSIGN) {
                    DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
                    int rank = in.readInt();
                    RecoverFrame world = RecoverFrame.decode(Arrays.copyOfRange(payload, 4, payload.length));
                    WorldClassLoader prepared;
                    synchronized (loader) {
                        prepared = loader[0];
                    }
                    assigned.complete(new Assignment(rank, world, prepared, connection, System.nanoTime()));
                    // from now on the connection is closed by the rank, not a reason to halt
                    throw new AgentTerminationException();
                }
                return 1;
            } catch (IOException e) {
                return halt("the control connection failed: " + e.getMessage());
            }
        }

        private int halt(String why) {
            System.err.println("standby " + id + ": stopping: " + why);
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_FAILED);
            return 0;
        }
    }
}
