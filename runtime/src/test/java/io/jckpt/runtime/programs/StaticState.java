package io.jckpt.runtime.programs;

/**
 * A class with static state, for the world loader tests: its initialiser counts how often it ran
 * in a system property (shared by every loader of the JVM), the way MPJ Express's static state is
 * set up when a world's MPI.Init runs.
 */
public final class StaticState {
    public static final String PROPERTY = "jckpt.test.static-state-initialised";
    static final long STARTED = init();

    private StaticState() {
    }

    private static long init() {
        System.setProperty(PROPERTY, Integer.toString(Integer.getInteger(PROPERTY, 0) + 1));
        return System.nanoTime();
    }

    /** Touches the class (initialises it). */
    public static long started() {
        return STARTED;
    }
}
