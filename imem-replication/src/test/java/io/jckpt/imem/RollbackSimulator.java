package io.jckpt.imem;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * Simulator (a tool to evaluate the policy, not a test): random failure events striking at a random
 * moment of a round's replication, over many events, for each m. For each event it builds what the
 * stores hold (round R complete everywhere, round R+1 at a random stage per owner, two versions kept),
 * fails ranks independently with probability p (their node-local store wiped with probability w),
 * plans, and counts: restored to the newest round R+1, to R, or not recoverable. For comparison it
 * also counts what the paper's single-version rule (in-memory only if the last round completed
 * everywhere and failures <= m) would have restored.
 * Args: n (8), events (20000), p (0.05), w (1.0), seed (1).
 */
public final class RollbackSimulator {
    private RollbackSimulator() {
    }

    /**
     * @param args n events p w seed
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        double p = args.length > 2 ? Double.parseDouble(args[2]) : 0.05;
        double w = args.length > 3 ? Double.parseDouble(args[3]) : 1.0;
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 1;
        System.out.printf("n=%d, %d failure events, each rank fails with p=%.3f (at least one fails), store wiped w=%.2f%n",
                n, events, p, w);
        System.out.println(" m | newest round | previous round | NOT recoverable | paper rule: imem ok | mean failed");
        for (int m = 1; m <= n - 1; m++) {
            Random rnd = new Random(seed + m);
            int newest = 0;
            int previous = 0;
            int lost = 0;
            int paperOk = 0;
            long failedTotal = 0;
            for (int e = 0; e < events; e++) {
                int[] progress = new int[n];
                boolean roundComplete = true;
                // a failure strikes during round R+1: each owner's copy has reached 0..m+1 holders
                boolean midRound = rnd.nextBoolean();
                for (int o = 0; o < n; o++) {
                    progress[o] = midRound ? rnd.nextInt(m + 2) : m + 1;
                    roundComplete &= progress[o] == m + 1;
                }
                Set<Integer> failed = new HashSet<>();
                while (failed.isEmpty()) {
                    for (int r = 0; r < n; r++) {
                        if (rnd.nextDouble() < p) {
                            failed.add(r);
                        }
                    }
                }
                failedTotal += failed.size();
                boolean wiped = rnd.nextDouble() < w;
                RollbackPlan plan = RollbackPlanner.plan(new RingModel(n, m, 10, progress).statuses(failed, wiped));
                if (!plan.recoverable()) {
                    lost++;
                } else if (plan.round() == 11) {
                    newest++;
                } else {
                    previous++;
                }
                if (roundComplete && failed.size() <= m) {
                    paperOk++;
                }
            }
            System.out.printf("%2d | %11.2f%% | %13.2f%% | %14.2f%% | %18.2f%% | %.2f%n", m, 100.0 * newest / events,
                    100.0 * previous / events, 100.0 * lost / events, 100.0 * paperOk / events, failedTotal / (double) events);
        }
    }
}
