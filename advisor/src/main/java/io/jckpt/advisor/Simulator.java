package io.jckpt.advisor;

import io.jckpt.policy.interval.FailureModel;
import io.jckpt.policy.interval.SlowProfile;
import java.util.SplittableRandom;

/**
 * A discrete-event Monte Carlo simulation of {@link FailureModel}'s two-level scheme, event by event
 * with no approximation: segments of {@code tau + cost} (plus {@code diskCost} every k-th), two
 * independent Poisson failure streams (survivable, unsurvivable), failures during checkpoints and
 * restarts included; a survivable failure goes back to the newest memory checkpoint, an unsurvivable
 * one to the newest disk round (or ends the job without the disk level). Used to check the closed
 * forms, and by the advisor's {@code --simulate}.
 *
 * <p>The slowdown after a restart is simulated as what it is in a job, a slow phase: after each restart the
 * computation progresses at the speeds of a {@link SlowProfile} (by default the scheme's even phase: {@code
 * w / (w + s)} of its speed for {@code w + s} seconds of wall time, w = {@link FailureModel.Scheme#slowWindow()},
 * s = {@link FailureModel.Scheme#slowdown()}), checkpoints going on meanwhile, so a failure in it loses only the
 * progress since the newest checkpoint (then a new slow phase starts).
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * The outcome of simulating many jobs.
     *
     * @param wallPerWork   mean wall time / computation over the jobs that finished
     * @param lostPerFailure mean time lost per failure (computation redone + restarts), over all failures
     * @param lossFraction  fraction of jobs ended by a failure neither level survives
     * @param jobs          jobs simulated
     */
    public record Result(double wallPerWork, double lostPerFailure, double lossFraction, int jobs) {
    }

    /**
     * Simulates {@code jobs} jobs of {@code work} seconds of computation each.
     *
     * @param s    the scheme
     * @param work computation per job (s, a multiple of tau is simplest)
     * @param jobs how many jobs
     * @param seed the random seed (same seed, same result)
     * @return the means
     */
    public static Result run(FailureModel.Scheme s, double work, int jobs, long seed) {
        return run(s, work, jobs, seed, false);
    }

    /**
     * {@link #run(FailureModel.Scheme, double, int, long)}, or with failures that fall due during a restart
     * waiting for its end and then striking at once ({@code bin/ckpt-run --mtbf}'s injection; the closed
     * form is {@link FailureModel#wallPerWork(FailureModel.Scheme, boolean)}).
     *
     * @param s                       the scheme
     * @param work                    computation per job (s)
     * @param jobs                    how many jobs
     * @param seed                    the random seed
     * @param failuresWaitForRestarts whether a failure due during a restart strikes at its end
     * @return the means
     */
    public static Result run(FailureModel.Scheme s, double work, int jobs, long seed, boolean failuresWaitForRestarts) {
        return run(s, work, jobs, seed, failuresWaitForRestarts ? Double.POSITIVE_INFINITY : 0);
    }

    /**
     * {@link #run(FailureModel.Scheme, double, int, long)} with a failure that falls due in the first
     * {@code held} seconds of a restart waiting for their end and then striking at once, and one due later
     * cutting the restart short (the closed form is {@link FailureModel#wallPerWork(FailureModel.Scheme,
     * double)}).
     *
     * @param s    the scheme
     * @param work computation per job (s)
     * @param jobs how many jobs
     * @param seed the random seed
     * @param held seconds of each restart no failure cuts short (&gt;= 0; clamped to the restart)
     * @return the means
     */
    public static Result run(FailureModel.Scheme s, double work, int jobs, long seed, double held) {
        return run(s, work, jobs, seed, held, SlowProfile.even(s.slowdown(), s.slowWindow()));
    }

    /**
     * {@link #run(FailureModel.Scheme, double, int, long, double)} with the computation after each restart
     * following {@code profile} (the scheme's slowdown and slow window are not used; the closed form is
     * {@link FailureModel#wallPerWork(FailureModel.Scheme, double, SlowProfile)}).
     *
     * @param s       the scheme
     * @param work    computation per job (s)
     * @param jobs    how many jobs
     * @param seed    the random seed
     * @param held    seconds of each restart no failure cuts short
     * @param profile the speed after a restart
     * @return the means
     */
    public static Result run(FailureModel.Scheme s, double work, int jobs, long seed, double held, SlowProfile profile) {
        Tally tally = new Tally();
        double[] walls = simulate(s, work, jobs, seed, held, profile, tally);
        double wallSum = 0;
        int finished = 0;
        for (double w : walls) {
            if (!Double.isNaN(w)) {
                wallSum += w;
                finished++;
            }
        }
        return new Result(finished == 0 ? Double.NaN : wallSum / finished,
                tally.failures == 0 ? 0 : tally.lost / tally.failures, (double) (jobs - finished) / jobs, jobs);
    }

    /**
     * Each job's wall time / computation, as {@link #run(FailureModel.Scheme, double, int, long, double)}
     * simulates them (the same seed gives the same jobs): the spread of a finite job's overhead, from which
     * the spread of a mean over a few jobs follows (what a benchmark of a few seeds can expect to see).
     *
     * @param s    the scheme
     * @param work computation per job (s)
     * @param jobs how many jobs
     * @param seed the random seed
     * @param held seconds of each restart no failure cuts short (&gt;= 0; clamped to the restart)
     * @return one value per job, NaN for a job ended by a failure neither level survives
     */
    public static double[] wallPerWorkOfJobs(FailureModel.Scheme s, double work, int jobs, long seed, double held) {
        return wallPerWorkOfJobs(s, work, jobs, seed, held, SlowProfile.even(s.slowdown(), s.slowWindow()));
    }

    /**
     * {@link #wallPerWorkOfJobs(FailureModel.Scheme, double, int, long, double)} with the computation after
     * each restart following {@code profile}.
     *
     * @param s       the scheme
     * @param work    computation per job (s)
     * @param jobs    how many jobs
     * @param seed    the random seed
     * @param held    seconds of each restart no failure cuts short
     * @param profile the speed after a restart
     * @return one value per job, NaN for a job ended by a failure neither level survives
     */
    public static double[] wallPerWorkOfJobs(FailureModel.Scheme s, double work, int jobs, long seed, double held,
                                             SlowProfile profile) {
        return simulate(s, work, jobs, seed, held, profile, new Tally());
    }

    /** Failures and the time they cost, over all jobs. */
    private static final class Tally {
        double lost;
        long failures;
    }

    private static double[] simulate(FailureModel.Scheme s, double work, int jobs, long seed, double held,
                                     SlowProfile profile, Tally tally) {
        if (!(held >= 0)) {
            throw new IllegalArgumentException("held must be >= 0 seconds, not " + held);
        }
        if (jobs < 1) {
            throw new IllegalArgumentException("jobs must be >= 1, not " + jobs);
        }
        SplittableRandom random = new SplittableRandom(seed);
        long segments = Math.max(1, Math.round(work / s.tau()));
        double rate = s.survivableRate() + s.unsurvivableRate();
        double pUnsurvivable = rate > 0 ? s.unsurvivableRate() / rate : 0;
        double[] walls = new double[jobs];
        for (int j = 0; j < jobs; j++) {
            double t = 0;
            long done = 0; // memory checkpoints taken (segments completed)
            long onDisk = 0; // segments safe on disk
            boolean ended = false;
            double lastProgressAt = 0; // wall time at which the newest completed segment ended
            double age = Double.POSITIVE_INFINITY; // wall time since the newest restart (none yet: steady)
            while (done < segments && !ended) {
                boolean diskRound = s.diskRatio() > 0 && (done + 1) % s.diskRatio() == 0;
                double length = s.tau() + s.cost() + (diskRound ? s.diskCost() : 0);
                // wall time of this segment: at the profile's speeds while it lasts, then at the steady pace
                double wall = profile.wallFor(age, length);
                double f = next(random, rate);
                if (f >= wall) {
                    age += wall;
                    t += wall;
                    done++;
                    if (diskRound) {
                        onDisk = done;
                    }
                    lastProgressAt = t;
                    continue;
                }
                // a failure: go back, restart (restarts may fail too)
                t += f;
                boolean toDisk = random.nextDouble() < pUnsurvivable;
                double failedAt = t;
                long before = done;
                for (;;) {
                    tally.failures++;
                    if (toDisk) {
                        if (s.diskRatio() <= 0) {
                            ended = true;
                            break;
                        }
                        done = onDisk;
                    }
                    double restart = toDisk ? s.diskRestart() : s.restart();
                    double g = next(random, rate);
                    if (g >= restart) {
                        t += restart;
                        break;
                    }
                    t += Math.max(g, Math.min(held, restart));
                    toDisk = toDisk || random.nextDouble() < pUnsurvivable;
                }
                // lost: the work since the newest kept checkpoint, plus the time to get going again
                tally.lost += (failedAt - lastProgressAt) + (before - done) * (s.tau() + s.cost()) + (t - failedAt);
                lastProgressAt = t;
                age = 0;
            }
            walls[j] = ended ? Double.NaN : t / (segments * s.tau());
        }
        return walls;
    }

    private static double next(SplittableRandom random, double rate) {
        return rate <= 0 ? Double.POSITIVE_INFINITY : -Math.log(1 - random.nextDouble()) / rate;
    }
}
