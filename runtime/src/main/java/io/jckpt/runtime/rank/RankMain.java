package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.ControlClient;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.RankExit;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The main class of every niodev rank JVM started by the launcher: connects to the launcher's
 * control channel, runs the program's main in a fresh MPJ world class loader with the arguments
 * MPI.Init expects ({@code rank conf niodev args...}), and reports how it ended.
 *
 * <p>A rank never outlives its launcher: when the control connection ends (the launcher died or
 * tore the job down) the rank halts.
 */
public final class RankMain {
    private static final int EXIT_FAILED = 1;

    private RankMain() {
    }

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("RankMain: no program main class given (ranks are started by bin/ckpt-run)");
            Runtime.getRuntime().halt(2);
        }
        RankEnvironment env = RankEnvironment.current();
        int rank = env.rank();
        ControlConnection control;
        try {
            control = ControlClient.connect(env.controlHost(), env.controlPort(), env.jobId(), env.secret(), rank);
        } catch (IOException e) {
            System.err.println("rank " + rank + ": cannot reach the launcher: " + e.getMessage());
            Runtime.getRuntime().halt(EXIT_FAILED);
            return;
        }
        watchLauncher(control, rank);
        String mainClass = args[0];
        String[] programArgs = Arrays.copyOfRange(args, 1, args.length);
        List<String> worldClassPath = new ArrayList<>(env.classPath(RankEnvironment.MPJ_CLASSPATH));
        worldClassPath.addAll(env.classPath(RankEnvironment.APP_CLASSPATH));
        WorldClassLoader world = new WorldClassLoader("mpj-world-" + env.require(RankEnvironment.EPOCH),
                worldClassPath, RankMain.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(world);
        int status;
        String reason;
        try {
            Method main = ProgramRunner.findMain(mainClass, world);
            send(control, ControlProtocol.RANK_READY, longBytes(ProcessHandle.current().pid()));
            ProgramRunner.run(main, mpjArgs(rank, env.require(RankEnvironment.MPJ_CONF), programArgs));
            status = 0;
            reason = "completed";
        } catch (Throwable t) {
            System.err.println("rank " + rank + ": " + mainClass + " threw " + t);
            t.printStackTrace();
            status = EXIT_FAILED;
            reason = "threw " + t;
        }
        System.out.flush();
        System.err.flush();
        send(control, ControlProtocol.RANK_EXIT, new RankExit(status, reason).encode());
        // MPJ Express leaves non-daemon threads behind (and blocks in Finalize after a failure):
        // the rank's end is decided here, not by the last thread.
        Runtime.getRuntime().halt(status);
    }

    static String[] mpjArgs(int rank, String conf, String[] programArgs) {
        String[] mpj = new String[programArgs.length + 3];
        mpj[0] = Integer.toString(rank);
        mpj[1] = conf;
        mpj[2] = "niodev";
        System.arraycopy(programArgs, 0, mpj, 3, programArgs.length);
        return mpj;
    }

    /** A daemon thread that halts this rank when the launcher says so or goes away. */
    static void watchLauncher(ControlConnection control, int rank) {
        Thread watcher = new Thread(() -> {
            String why = "the launcher closed the control connection";
            try {
                for (byte[] frame = control.receive(); frame != null; frame = control.receive()) {
                    if (frame[0] == ControlProtocol.SHUTDOWN) {
                        why = "the launcher asked to stop";
                        break;
                    }
                }
            } catch (IOException e) {
                why = "the control connection failed: " + e.getMessage();
            }
            System.err.println("rank " + rank + ": stopping: " + why);
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_FAILED);
        }, "jckpt-control-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    static void send(ControlConnection control, byte type, byte[] payload) {
        try {
            control.send(type, payload);
        } catch (IOException e) {
            // the launcher is gone; the watcher halts this rank
        }
    }

    static byte[] longBytes(long value) {
        return java.nio.ByteBuffer.allocate(8).putLong(value).array();
    }

}
