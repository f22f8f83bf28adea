package io.jckpt.chaos;

import io.jckpt.testkit.hosts.TestHost;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The failures of a run across test hosts ({@link Scenario#HOST}, {@link Scenario#KILL_HOST},
 * {@link Scenario#PARTITION}, {@link Scenario#HOSTS2}; {@link Scenario#SIGSTOP}'s moment), injected from
 * outside the launcher through {@link CampaignHosts}, at a moment drawn from the run's own random numbers
 * ({@link Injector}'s): a third of the runs at a moment of the start-up (from the launch, through the
 * launcher's host check, the ranks' start over ssh, MPI.Init and Ckpt.open, to the first round), the
 * others at a point of the program's progress as on one host. Which job host fails comes from the same
 * draws, so a seed names the same host whatever the timing.
 */
final class HostInjections {
    /** The share of runs whose failure lands during the start-up. */
    static final double STARTUP_SHARE = 1.0 / 3;

    private final Injector injector;
    private final CampaignHosts hosts;

    HostInjections(Injector injector, CampaignHosts hosts, String jobId) {
        this.injector = injector;
        this.hosts = hosts;
    }

    /**
     * Waits for the run's moment: during start-up (5 % to 115 % of the reference run's first checkpoint
     * after the launch) when the run's draw says so, else {@link Injector#atMoment}; false when the job
     * ended first.
     */
    boolean atMoment(LaunchedRun run) throws InterruptedException {
        if (injector.w >= STARTUP_SHARE) {
            return injector.atMoment(run);
        }
        long at = run.startNanos() + (long) ((0.05 + 1.1 * injector.u) * injector.reference.firstRound() * 1e9);
        if (!run.sleepUntil(Math.min(at, injector.deadlineNanos)) || run.ended()) {
            injector.missed("the job ended before the start-up moment");
            return false;
        }
        injector.note("start-up moment");
        return true;
    }

    /** Injects {@code scenario}'s host failure into {@code run}. */
    void inject(LaunchedRun run, Scenario scenario) throws IOException, InterruptedException {
        List<TestHost> job = hosts.jobHosts();
        if (scenario == Scenario.HOST_FLUSH) {
            injector.awaitFlush(run, (owner, file, which) -> {
                long pid = run.rankPid(owner);
                TestHost own = pid > 0 ? hosts.hostOf(pid) : null;
                if (own == null) {
                    injector.missed("rank " + owner + " had no process on a job host at its flush");
                    return;
                }
                lose(run, own);
                injector.note("(as rank %d created %s, flush %d)", owner, file, which);
            });
            return;
        }
        if (!atMoment(run)) {
            return;
        }
        int first = injector.r % job.size();
        switch (scenario) {
            case HOST, HOST_RELAUNCH -> lose(run, job.get(first));
            // the second host: in half the runs the spare the first one's ranks restart on, else another job host
            case HOST_RESTART -> loseThenAnother(run, job, first, "recovering: epoch", 600,
                    injector.r2 % 2 == 0 ? hosts.spares().get(0) : job.get(other(first, job.size())));
            case HOST_ROLLBACK -> loseThenAnother(run, job, first, "recovered: all", 1500,
                    job.get(other(first, job.size())));
            case PARTITION -> {
                beforeHostCheck(run, job.get(first));
                hosts.isolate(job.get(first));
                injector.injected++;
                injector.note("%s cut off by a partition at %s", name(job.get(first)), Injector.since(run));
            }
            case HOSTS2 -> {
                lose(run, job.get(first), job.get(other(first, job.size())));
                if (job.size() == 2) {
                    // every job host: every copy gone, the disk generation or nothing
                    injector.allowClearErrorWithoutGenerations(1);
                }
            }
            case KILL_HOST -> killThenHost(run, job);
            default -> throw new IllegalArgumentException(scenario.label + " is not a host failure");
        }
    }

    /**
     * The loss of job host {@code first}, then, 0 to {@code withinMillis} ms (drawn) after the launcher's
     * line containing {@code after}, of {@code second}: while the first one's ranks restart, or while every
     * rank restores. With 2 job hosts both lost, every copy is gone: the disk generation, or a clear error.
     */
    private void loseThenAnother(LaunchedRun run, List<TestHost> job, int first, String after, long withinMillis,
                                 TestHost second) throws IOException, InterruptedException {
        lose(run, job.get(first));
        if (job.size() == 2) {
            injector.allowClearErrorWithoutGenerations(1);
        }
        LaunchedRun.Line line = run.await(t -> t.contains(after), injector.deadlineNanos);
        if (line == null) {
            injector.note("no '%s' line: the second host not lost", after);
            return;
        }
        long delay = (long) (injector.v * withinMillis);
        if (!run.sleepUntil(line.nanos() + delay * 1_000_000L) || run.ended()) {
            injector.note("the job ended before the second host loss");
            return;
        }
        hosts.lose(second);
        injector.injected++;
        injector.note("then %s lost %d ms after '%s' (at %s)", name(second), delay, after, Injector.since(run));
    }

    /** SIGKILL of rank r, then 100-800 ms later the loss of a job host other than the rank's. */
    private void killThenHost(LaunchedRun run, List<TestHost> job) throws IOException, InterruptedException {
        long pid = run.awaitRankPid(injector.r, Math.min(injector.deadlineNanos, System.nanoTime() + 10_000_000_000L));
        if (pid <= 0) {
            injector.missed("rank " + injector.r + " never had a process");
            return;
        }
        TestHost own = hosts.hostOf(pid);
        int ownIndex = own == null ? injector.r % job.size() : Math.max(0, job.indexOf(own));
        JobProcesses.kill(List.of(pid));
        injector.injected++;
        injector.note("SIGKILL rank %d (pid %d on %s) at %s", injector.r, pid, own == null ? "?" : name(own),
                Injector.since(run));
        long delay = 100 + (long) (injector.v * 700);
        if (!run.sleepUntil(System.nanoTime() + delay * 1_000_000L) || run.ended()) {
            injector.note("the job ended before the host loss");
            return;
        }
        lose(run, job.get(other(ownIndex, job.size())));
        injector.note("(%d ms after the kill)", delay);
    }

    /** Another job host than {@code index}, drawn. */
    private int other(int index, int count) {
        return (index + 1 + injector.r2 % (count - 1)) % count;
    }

    private void lose(LaunchedRun run, TestHost... lost) throws IOException {
        for (TestHost h : lost) {
            beforeHostCheck(run, h);
        }
        hosts.lose(lost);
        injector.injected++;
        StringBuilder names = new StringBuilder();
        for (TestHost h : lost) {
            names.append(names.length() == 0 ? "" : " and ").append(name(h));
        }
        injector.note("%s lost at %s", names, Injector.since(run));
    }

    /**
     * A host failure before the launcher's host check ended (its "hosts:" line not out yet): the check
     * may find the host unreachable, and the launcher then refuses the job with one line naming it (exit 2,
     * nothing started), which is a clear error for this run.
     */
    private void beforeHostCheck(LaunchedRun run, TestHost host) {
        if (run.texts().stream().noneMatch(t -> t.contains("] hosts: "))) {
            injector.clearErrorAllowed = true;
            injector.clearErrorText = "ckpt-run: host " + host.address() + " ";
            injector.clearErrorReason = "the host failed before the launcher's host check ended";
        }
    }

    private static String name(TestHost h) {
        return String.format(Locale.ROOT, "host %s (%s)", h.name(), h.address());
    }
}
