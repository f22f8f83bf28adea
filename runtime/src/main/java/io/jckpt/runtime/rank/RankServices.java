package io.jckpt.runtime.rank;

import java.lang.reflect.Method;

/**
 * What the runtime offers the library inside a rank: the control channel to the launcher (status
 * exchange, events). Held by the class loader that loads the library: the rank JVM's application
 * loader for niodev (so it outlives MPJ worlds), each rank's own loader for multicore.
 */
public final class RankServices {
    private static volatile RankControl control;
    private static volatile WorldInfo world = new WorldInfo(0, false, false, new int[0]);
    private static final InheritableThreadLocal<Integer> THREAD_EPOCH = new InheritableThreadLocal<>();

    private RankServices() {
    }

    /** Installs the control channel of this rank. */
    public static void install(RankControl rankControl) {
        control = rankControl;
    }

    /** Enters a new world; the calling thread and threads it starts afterwards belong to it. */
    public static void enterWorld(WorldInfo info) {
        world = info;
        THREAD_EPOCH.set(info.epoch());
    }

    /**
     * The world the calling thread belongs to: the one it (or the thread that started it) entered,
     * else the current one.
     */
    public static int threadEpoch() {
        Integer mine = THREAD_EPOCH.get();
        return mine != null ? mine : world.epoch();
    }

    /** The world this rank is in now. */
    public static WorldInfo world() {
        return world;
    }

    /**
     * Fences abandoned worlds: throws {@link WorldAbandonedError} when the calling thread belongs to
     * an older world than the current one (threads that belong to none pass).
     */
    public static void checkCurrentWorld() {
        Integer mine = THREAD_EPOCH.get();
        int current = world.epoch();
        if (mine != null && mine != current) {
            throw new WorldAbandonedError("this thread belongs to MPJ world " + mine + ", abandoned for world "
                    + current + " after a failure");
        }
    }

    /** The control channel, or {@code null} outside a rank started by the launcher. */
    public static RankControl control() {
        return control;
    }

    /**
     * Runs one multicore rank inside its own class loader (called reflectively by
     * {@code MulticoreHost}, so that everything here, including this holder, is the rank's own):
     * connects, runs the program's main with smpdev arguments, reports how it ended. Returns
     * normally when main completed.
     *
     * @param rank        the rank
     * @param size        the world size
     * @param mainClass   the program's main class
     * @param programArgs the program's arguments
     * @throws Throwable what main threw
     */
    public static void runMulticoreRank(int rank, int size, String mainClass, String[] programArgs) throws Throwable {
        RankEnvironment env = RankEnvironment.current();
        RankControl rankControl = RankControl.connect(env, rank, RankControl.Listener.NONE);
        install(rankControl);
        RuntimeJobServices.install(rankControl, env);
        Method main = ProgramRunner.findMain(mainClass, RankServices.class.getClassLoader());
        rankControl.ready();
        try {
            ProgramRunner.run(main, ProgramRunner.mpjArgs(rank, Integer.toString(size), "smpdev", programArgs));
        } catch (Throwable t) {
            rankControl.exited(1, "threw " + t);
            throw t;
        }
        rankControl.exited(0, "completed");
    }
}
