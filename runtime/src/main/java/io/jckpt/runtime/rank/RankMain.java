package io.jckpt.runtime.rank;

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
 * tore the job down) the rank halts ({@link RankControl}).
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
        RankControl control;
        try {
            control = RankControl.connect(env, rank);
        } catch (IOException e) {
            System.err.println("rank " + rank + ": cannot reach the launcher: " + e.getMessage());
            Runtime.getRuntime().halt(EXIT_FAILED);
            return;
        }
        RankServices.install(control);
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
            control.ready();
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
        control.exited(status, reason);
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




}
