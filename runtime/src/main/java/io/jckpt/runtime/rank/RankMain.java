package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.RecoverFrame;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * the library's state, held by this JVM's application loader, intact. The fresh loader is
 * prepared in the background while the current world runs ({@link WorldLoaders}).
 *
 * <p>With {@code JCKPT_STANDBY} set the JVM starts as a warm standby ({@link Standby}): no rank
 * until the launcher assigns it one, then the same life as a re-spawned rank.
 *
 * <p>A rank whose program completed stays until the launcher says the whole job completed, so it
 * can rejoin a new world if another rank fails late. A rank never outlives its launcher: when the
 * control connection ends the rank halts ({@link RankControl}).
 */
public final class RankMain {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RankMain.class);
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
        String mainClass = args[0];
        String[] programArgs = Arrays.copyOfRange(args, 1, args.length);
        List<String> worldClassPath = new ArrayList<>(env.classPath(RankEnvironment.MPJ_CLASSPATH));
        worldClassPath.addAll(env.classPath(RankEnvironment.APP_CLASSPATH));
        int standby = env.standbyId();
        if (standby >= 0) {
            Standby.Assignment assignment = Standby.await(env, standby, mainClass, worldClassPath);
            RecoverFrame frame = assignment.world();
            run(env, assignment.rank(), new WorldInfo(frame.epoch(), true, true, frame.failedRanks()), frame.mpjConf(),
                    mainClass, programArgs, worldClassPath, assignment.loader(), assignment.standbyConnection(),
                    assignment.receivedNanos() - frame.failureAgeMicros() * 1000);
        } else {
            MacWarmup.start(env.rank()); // while it connects: its first open verifies and seals with the MAC
            WorldInfo world = new WorldInfo(env.requireInt(RankEnvironment.EPOCH),
                    Boolean.parseBoolean(env.require(RankEnvironment.RECOVERY)),
                    Boolean.parseBoolean(env.require(RankEnvironment.NEW_RANK)), new int[0]);
            run(env, env.rank(), world, env.require(RankEnvironment.MPJ_CONF), mainClass, programArgs, worldClassPath,
                    null, null, -1);
        }
    }

    private static void run(RankEnvironment env, int rank, WorldInfo firstWorld, String firstConf, String mainClass,
                            String[] programArgs, List<String> worldClassPath, WorldClassLoader prepared,
                            AutoCloseable standbyConnection, long failureDetectedNanos) throws InterruptedException {
        // the listener exists before the connection: a RECOVER sent the moment this rank connects
        // (it joined after a recovery began) is queued, never dropped
        BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
        RankControl.Listener listener = new RankControl.Listener() {
            @Override
            public void recover(RecoverFrame frame) {
                signals.add(new Recover(frame));
            }

            @Override
            public void jobComplete(int epoch) {
                signals.add(new JobComplete(epoch));
            }
        };
        TestHooks.beforeConnect(rank, firstWorld.epoch());
        RankControl control;
        try {
            control = RankControl.connect(env, rank, firstWorld.epoch(), listener);
        } catch (IOException e) {
            System.err.println("rank " + rank + ": cannot reach the launcher: " + e.getMessage());
            Runtime.getRuntime().halt(EXIT_FAILED);
            return;
        }
        if (standbyConnection != null) {
            closeQuietly(standbyConnection); // it is this rank now: the standby's connection is done
            control.failureDetected(failureDetectedNanos); // its restart counts from the failure's detection
        }
        RankServices.install(control);
        RuntimeJobServices.install(control, env);
        TestHooks.afterConnect(rank, firstWorld.epoch());

        WorldLoaders loaders = new WorldLoaders(worldClassPath, RankMain.class.getClassLoader(), rank);
        if (prepared != null) {
            loaders.adopt(prepared);
        }
        WorldInfo world = firstWorld;
        String conf = firstConf;
        boolean respawn = "respawn".equals(System.getenv(RankEnvironment.ON_FAILURE));
        // only a recovering job abandons worlds: there MPJ's traces of a failure are its echo
        WorldTraces traces = respawn ? WorldTraces.install(rank) : null;
        boolean completed = false;
        if (control.epoch() == world.epoch()) {
            startProgram(world, conf, rank, mainClass, programArgs, loaders, respawn, control, signals);
        } // else a recovery was announced while this rank started: its RECOVER is queued and starts the program
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
                    String trace = stackTrace(t);
                    // nothing on the console: the launcher decides what this is and says it once, a
                    // program error with its stack trace, the echo of another rank's death (this rank
                    // re-enters the program) within the recovery's line
                    LOG.debug("rank {}: {} threw {}{}", rank, mainClass, t,
                            respawn ? "; waiting for the launcher to decide" : "");
                    control.exited(EXIT_FAILED, "threw " + t, ended.epoch(), trace);
                    if (!respawn) {
                        Runtime.getRuntime().halt(EXIT_FAILED);
                    }
                    continue;
                }
                completed = true;
                control.exited(0, "completed", ended.epoch());
            } else if (signal instanceof Recover recover) {
                completed = false;
                world = new WorldInfo(recover.frame().epoch(), true, false, recover.frame().failedRanks());
                conf = recover.frame().mpjConf();
                startProgram(world, conf, rank, mainClass, programArgs, loaders, respawn, control, signals);
            } else if (signal instanceof JobComplete done && completed && done.epoch() == control.epoch()) {
                TestHooks.beforeExit(rank, done.epoch());
                loaders.stop();
                if (traces != null) {
                    traces.release(true); // the world completed: what MPJ printed in it was no echo
                }
                System.out.flush();
                System.err.flush();
                // MPJ Express leaves non-daemon threads behind: the rank's end is decided here
                Runtime.getRuntime().halt(0);
            }
        }
    }

    private static void startProgram(WorldInfo world, String conf, int rank, String mainClass, String[] programArgs,
                                     WorldLoaders loaders, boolean respawn, RankControl control,
                                     BlockingQueue<Signal> signals) {
        WorldClassLoader loader = loaders.take(world.epoch());
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
        CommunicationWait.programThread(program);
        program.start();
        if (respawn) {
            // only a recovering job ever needs another world
            loaders.prepareNext(loader, world.epoch() + 1, WorldLoaders.PREPARE_DELAY_MILLIS);
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter text = new StringWriter();
        t.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // a standby connection that is already broken: nothing to release
        }
    }
}
