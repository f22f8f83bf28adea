package io.jckpt.runtime.launcher;

import java.util.Map;

/**
 * Decides that ranks have failed beyond what the launcher sees by itself (a rank process that
 * exits is always a failure, reported at once by the JDK's process reaper). Detectors are chosen
 * by configuration ({@code --detector}); several can be chained. Called on the launcher's
 * supervisor thread every poll (about every 20 ms), so it must not block.
 */
public interface FailureDetector {

    /** @return a short name for the launcher's log */
    String name();

    /**
     * @param view what the launcher knows of the ranks now
     * @return the ranks this detector declares failed, each with the reason (empty: none)
     */
    Map<Integer, String> poll(View view);

    /** The launcher's knowledge a detector may use. */
    interface View {
        /** @return the number of ranks */
        int worldSize();

        /** @return System.nanoTime() of the last frame of any kind heard from {@code rank} */
        long lastHeardNanos(int rank);

        /**
         * @return whether the rank is in a state where it must be heard from (its process running, not
         *         finishing), from the moment its process exists: see {@link #joined}
         */
        boolean expectedAlive(int rank);

        /**
         * @return whether the rank's current process connected to the launcher; before that its silence
         *         counts from its start, and it sends nothing yet (a JVM still starting). A rank is heard
         *         at its connection before it counts as joined: read this before {@link #lastHeardNanos}
         */
        default boolean joined(int rank) {
            return true;
        }

        /** @return the pid of the rank's process when it runs on this host, else -1 */
        default long localPid(int rank) {
            return -1;
        }
    }
}
