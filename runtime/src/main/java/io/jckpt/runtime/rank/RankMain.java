package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.RecoverFrame;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The main class of every niodev rank JVM started by the launcher. Runs the program's main in a
 * program thread inside an MPJ world class loader, with the arguments MPI.Init expects
 * ({@code rank conf niodev args...}), and reports how it ended.
 *
 * <p>Recover-and-continue: when the launcher announces a new epoch (another rank failed and was
 * re-spawned), the current world is abandoned (its threads may stay blocked in MPJ Express
 * forever; they are daemon threads, fenced from the library by {@link RankServices#checkCurrentWorld})
 * and the program re-enters main in a fresh world class loader, with MPJ's static state fresh and
 * the library's state, held by this JVM's application loader, intact.
 *
 * <p>A rank whose program completed stays until the launcher says the whole job completed, so it
 * can rejoin a new world if another rank fails late. A rank never outlives its launcher: when the
 * control connection ends the rank halts ({@link RankControl}).
 */
public final class RankMain {
    private static final int EXIT_FAILED = 1;

    private sealed interface Signal {
    }

    private record ProgramEnded(int epoch, Throwable failure) implements Signal {
    }

    private record Recover(RecoverFrame frame) implements Signal {
    }

    private record JobComplete(int epoch) implements Signal {
    }

    private RankMain() {
    }

    public static void main(String[] args) throws InterruptedException {
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
        RuntimeJobServices.install(control, env);
        BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
        control.listener(new RankControl.Listener() {
            @Override
            public void recover(RecoverFrame frame) {
                signals.add(new Recover(frame));
            }

            @Override
            public void jobComplete(int epoch) {
                signals.add(new JobComplete(epoch));
            }
        });

        String mainClass = args[0];
        String[] programArgs = Arrays.copyOfRange(args, 1, args.length);
        List<String> worldClassPath = new ArrayList<>(env.classPath(RankEnvironment.MPJ_CLASSPATH));
        worldClassPath.addAll(env.classPath(RankEnvironment.APP_CLASSPATH));
        WorldInfo world = new WorldInfo(env.requireInt(RankEnvironment.EPOCH),
                Boolean.parseBoolean(env.require(RankEnvironment.RECOVERY)),
                Boolean.parseBoolean(env.require(RankEnvironment.NEW_RANK)), new int[0]);
        String conf = env.require(RankEnvironment.MPJ_CONF);
        boolean respawn = "respawn".equals(System.getenv(RankEnvironment.ON_FAILURE));
        boolean completed = false;
        startProgram(world, conf, rank, mainClass, programArgs, worldClassPath, control, signals);
        for (;;) {
            // no timeout needed: the control reader halts this JVM if the launcher goes away
            Signal signal = signals.take();
            if (signal instanceof ProgramEnded ended) {
                if (ended.epoch() != control.epoch()) {
                    continue; // a thread of an abandoned world gave up: expected
                }
                System.out.flush();
                System.err.flush();
                if (ended.failure() != null) {
                    Throwable t = ended.failure();
                    System.err.println("rank " + rank + ": " + mainClass + " threw " + t);
                    if (!respawn) {
                        t.printStackTrace();
                    } else {
                        // most often the echo of another rank's death: one line here, the launcher decides
                        System.err.println("rank " + rank + ": waiting for the launcher to recover or replace this rank");
                    }
                    System.err.flush();
                    control.exited(EXIT_FAILED, "threw " + t, ended.epoch());
                    if (!respawn) {
                        Runtime.getRuntime().halt(EXIT_FAILED);
                    }
                    // often the echo of another rank's death in MPJ Express (a closed channel):
                    // the launcher decides, and either sends RECOVER or replaces this process
                    continue;
                }
                completed = true;
                control.exited(0, "completed", ended.epoch());
            } else if (signal instanceof Recover recover) {
                completed = false;
                world = new WorldInfo(recover.frame().epoch(), true, false, recover.frame().failedRanks());
                conf = recover.frame().mpjConf();
                startProgram(world, conf, rank, mainClass, programArgs, worldClassPath, control, signals);
            } else if (signal instanceof JobComplete done && completed && done.epoch() == control.epoch()) {
                System.out.flush();
                System.err.flush();
                // MPJ Express leaves non-daemon threads behind: the rank's end is decided here
                Runtime.getRuntime().halt(0);
            }
        }
    }

    private static void startProgram(WorldInfo world, String conf, int rank, String mainClass, String[] programArgs,
                                     List<String> worldClassPath, RankControl control, BlockingQueue<Signal> signals) {
        WorldClassLoader loader = new WorldClassLoader("mpj-world-" + world.epoch(), worldClassPath,
                RankMain.class.getClassLoader());
        RankServices.enterWorld(world); // before the thread exists: it inherits the world's epoch
        Thread program = new Thread(() -> {
            Throwable failure = null;
            try {
                Method main = ProgramRunner.findMain(mainClass, loader);
                control.ready();
                ProgramRunner.run(main, ProgramRunner.mpjArgs(rank, conf, "niodev", programArgs));
            } catch (Throwable t) {
                failure = t;
            }
            signals.add(new ProgramEnded(world.epoch(), failure));
        }, "jckpt-program-epoch-" + world.epoch());
        program.setContextClassLoader(loader);
        program.setDaemon(true); // an abandoned world's thread must not keep the JVM alive
        program.start();
    }
}
