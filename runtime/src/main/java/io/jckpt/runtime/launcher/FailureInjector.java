package io.jckpt.runtime.launcher;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The failures a job injects into itself: each {@code --kill} spec once, when it is due, and with
 * {@code --mtbf} SIGKILLs of one random rank at exponentially distributed times (mean --mtbf seconds)
 * drawn from a {@link SplittableRandom} seeded with {@code --seed}, so that a seed replays the same schedule.
 * ({@code java.util.Random} would not do: its first draw after consecutive small seeds is nearly the same,
 * so every seed's first failure fell at 1.31 x --mtbf.)
 * {@link #due} decides what fires (pure, unit-tested); {@link #injectDue} kills through the job's
 * {@link Target}. Used by the supervisor thread only.
 */
final class FailureInjector {
    private static final long TEARDOWN_MILLIS = 2_000;

    /** What an injected failure acts on: the job's processes and stores. */
    interface Target {
        /** @return the live process hosting {@code rank} when its program has not completed, else {@code null} */
        RankHost victim(int rank);

        /** Wipes {@code rank}'s node-local store (node loss). */
        void wipe(int rank);

        /** {@code rank}'s process was killed by the injection: it failed, as {@code description} says. */
        void killed(int rank, String description);
    }

    private final List<KillSpec> pending;
    private final double mtbfSeconds;
    private final int worldSize;
    private final SplittableRandom random;
    private double nextRandomSeconds;
    private boolean rollingBack;

    /**
     * @param kills       the --kill specs
     * @param mtbfSeconds the mean time between random failures; 0 for none
     * @param seed        the random's seed (--seed)
     * @param worldSize   the ranks a random failure chooses from
     */
    FailureInjector(List<KillSpec> kills, double mtbfSeconds, long seed, int worldSize) {
        this.pending = new ArrayList<>(kills);
        this.mtbfSeconds = mtbfSeconds;
        this.worldSize = worldSize;
        this.random = new SplittableRandom(seed);
        this.nextRandomSeconds = mtbfSeconds > 0 ? exponential() : Double.MAX_VALUE;
    }

    /** Seconds until the next random failure: exponential with mean --mtbf. */
    private double exponential() {
        return -mtbfSeconds * Math.log(1 - random.nextDouble());
    }

    /** A recovery built its new world: its ranks are rolling back now (for {@code RANKS@recovery}). */
    void worldRebuilt() {
        rollingBack = true;
    }

    /**
     * The failures due now, removed from the pending ones. A random failure is scheduled when its time
     * has come and {@code randomAllowed} (no recovery under way, no failure pending, the job not ending);
     * otherwise it waits for such a moment.
     *
     * @param elapsedSeconds seconds since the job started
     * @param newestRound    the newest checkpoint round any rank reported
     */
    List<KillSpec> due(double elapsedSeconds, long newestRound, boolean randomAllowed) {
        if (elapsedSeconds >= nextRandomSeconds && randomAllowed) {
            int victim = random.nextInt(worldSize);
            pending.add(new KillSpec(List.of(victim), 0, -1, false, false,
                    String.format(Locale.ROOT, "%d@%.2fs (random, mtbf %.1fs)", victim, elapsedSeconds, mtbfSeconds)));
            nextRandomSeconds = elapsedSeconds + exponential();
        }
        if (pending.isEmpty()) {
            return List.of();
        }
        boolean rollbackUnderWay = rollingBack;
        rollingBack = false;
        List<KillSpec> due = new ArrayList<>();
        for (Iterator<KillSpec> it = pending.iterator(); it.hasNext(); ) {
            KillSpec kill = it.next();
            if (kill.due(elapsedSeconds, newestRound, rollbackUnderWay)) {
                it.remove();
                due.add(kill);
            }
        }
        return due;
    }

    /** @return when the next random failure is due, in seconds since the start ({@code Double.MAX_VALUE}: none) */
    double nextRandomSeconds() {
        return nextRandomSeconds;
    }

    /**
     * Fires the failures that are due: SIGKILL to their ranks' processes (bounded wait until they are
     * gone), for node loss their node-local stores wiped, then each victim reported to the job as
     * failed, so that the victims of one injection are recovered together.
     */
    void injectDue(double elapsedSeconds, long newest, boolean randomAllowed, Target target, JobConsole console) {
        for (KillSpec kill : due(elapsedSeconds, newest, randomAllowed)) {
            List<RankHost> victims = new ArrayList<>();
            for (int rank : kill.ranks()) {
                // a rank whose program completed is not part of the computation any more: killing it
                // would start a recovery of a finished job
                RankHost host = target.victim(rank);
                if (host != null && !victims.contains(host)) {
                    victims.add(host);
                }
            }
            String ranks = "rank" + (kill.ranks().size() > 1 ? "s " : " ")
                    + kill.ranks().toString().replaceAll("[\\[\\]]", "");
            if (victims.isEmpty()) {
                console.event("failure " + kill.text() + " not injected: " + ranks + " already completed or gone");
                continue;
            }
            console.event(LauncherEvents.injection("injecting failure " + kill.text() + ": SIGKILL to " + ranks
                    + (kill.wipe() ? " and their node-local stores wiped" : "")
                    + (newest > 0 ? " (newest checkpoint round " + newest + ")" : ""), kill.text(), kill.ranks(),
                    kill.wipe(), newest));
            victims.forEach(RankHost::kill);
            for (RankHost host : victims) {
                host.awaitExit(TEARDOWN_MILLIS); // gone before its store is wiped and before recovery starts
            }
            if (kill.wipe()) {
                kill.ranks().forEach(target::wipe);
            }
            for (RankHost host : victims) {
                target.killed(host.ranks().get(0), "rank " + host.ranks().get(0) + " (pid " + host.pid() + ") "
                        + "killed by the injected failure " + kill.text());
            }
        }
    }
}
