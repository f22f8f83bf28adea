package io.jckpt.perf;

import io.jckpt.CkptOptions;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.Baselines;
import io.jckpt.testkit.RankThreads;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The paper's Table 2 (in-memory level, m = 1) and Table 1 (stable disk), 4 ranks as threads of
 * this JVM through the real {@link TwoLevelCheckpointer}. Each repetition is one job: world 0
 * registers {@code size} bytes per rank and checkpoints a few rounds; then a failure: for Table 2
 * rank 1's node is lost (its node-local store wiped) and it comes back new, so rank 2 (its nearest
 * NEXT survivor) is the Sender, rank 1 the Recver and ranks 0 and 3 Normal; for Table 1 ranks 1
 * and 2 (adjacent: m + 1 failures) lose their nodes, so every rank restores from the disk
 * generation (OLD = 0 and 3, NEW = 1 and 2). World 1 opens with the new ranks marked new; each rank
 * rolls its data back and it is compared with what was checkpointed.
 */
final class PaperTables {
    /** Paper figures in seconds: {T ckpt, T ckpt total, T rollback (level), T rollback total}; NaN = "-". */
    static final Map<String, double[]> PAPER_T2 = new TreeMap<>();
    static final Map<String, double[]> PAPER_T1 = new TreeMap<>();
    private static final double NA = Double.NaN;

    static {
        PAPER_T2.put("400 B Sender", new double[] {0.0026, 0.0062, 0.000151, 0.0016});
        PAPER_T2.put("400 B Recver", new double[] {NA, NA, 0.000151, 0.0015});
        PAPER_T2.put("400 B Normal", new double[] {NA, NA, 0.000004, 0.0046});
        PAPER_T2.put("40 KB Sender", new double[] {0.0261, 0.0269, 0.000893, 0.002584});
        PAPER_T2.put("40 KB Recver", new double[] {NA, NA, 0.001431, 0.037701});
        PAPER_T2.put("40 KB Normal", new double[] {NA, NA, 0.000143, 0.035958});
        PAPER_T2.put("4 MiB Sender", new double[] {0.6907, 1.0701, 0.353990, 0.391026});
        PAPER_T2.put("4 MiB Recver", new double[] {NA, NA, 0.344040, 0.381836});
        PAPER_T2.put("4 MiB Normal", new double[] {NA, NA, 0.022379, 0.059456});
        PAPER_T1.put("400 B OLD", new double[] {0.0151, 0.0185, 0.0033, 0.0051});
        PAPER_T1.put("400 B NEW", new double[] {NA, NA, 0.0040, 0.0094});
        PAPER_T1.put("40 KB OLD", new double[] {0.0295, 0.0356, 0.0033, 0.0047});
        PAPER_T1.put("40 KB NEW", new double[] {NA, NA, 0.04767, 0.06037});
        PAPER_T1.put("4 MiB OLD", new double[] {3.0704, 3.2319, 0.0380, 0.0453});
        PAPER_T1.put("4 MiB NEW", new double[] {NA, NA, 1.5401, 1.5781});
    }

    /** One role's samples at one size. */
    static final class RoleSamples {
        final Samples ckpt = new Samples();
        final Samples ckptTotal = new Samples();
        final Samples open = new Samples();
        final Samples rollbackCall = new Samples();
        final Samples rollbackTotal = new Samples();
        final Samples flush = new Samples();
        /** The recovery open()'s steps from {@code CkptStats.lastRecovery}, in {@link #STEPS} order. */
        final Samples[] steps = {new Samples(), new Samples(), new Samples(), new Samples(), new Samples(),
                new Samples(), new Samples()};
        final TreeSet<String> restoredFrom = new TreeSet<>();
        int mismatches;
    }

    /** The samples of one size. */
    record Result(int size, boolean disk, Map<String, RoleSamples> roles, Samples memcpy, Samples tcp, Samples durable,
                  Samples read, Samples durable4) {
    }

    /** The recovery steps printed by {@link #reportSteps}. */
    static final List<String> STEPS = List.of("store open", "status exchanges", "plan", "transfer",
            "verification", "ring re-join", "bytes sent / received");

    private final Path root;
    private final Path diskRoot;
    private final Baselines.TwoJvmPair jvms;
    private final java.util.concurrent.ExecutorService writers;

    /** {@code writers}: 4 threads for the concurrent durable-write baseline of Table 1 (owned by the caller). */
    PaperTables(Path root, Path diskRoot, Baselines.TwoJvmPair jvms, java.util.concurrent.ExecutorService writers) {
        this.root = root;
        this.diskRoot = diskRoot;
        this.jvms = jvms;
        this.writers = writers;
    }

    static String role(boolean disk, int rank) {
        if (disk) {
            return rank == 1 || rank == 2 ? "NEW" : "OLD";
        }
        return switch (rank) {
            case 1 -> "Recver";
            case 2 -> "Sender";
            default -> "Normal";
        };
    }

    Result run(int size, boolean disk, int reps, int rounds) throws Exception {
        int n = 4;
        Map<String, RoleSamples> roles = new TreeMap<>();
        for (String r : disk ? List.of("OLD", "NEW") : List.of("Sender", "Recver", "Normal")) {
            roles.put(r, new RoleSamples());
        }
        Samples memcpy = new Samples();
        Samples tcp = new Samples();
        Samples durable = new Samples();
        Samples read = new Samples();
        Samples durable4 = new Samples();
        ByteBuffer[] images4 = new ByteBuffer[4];
        for (int w = 0; w < 4 && disk; w++) {
            images4[w] = Baselines.pretouched(size);
            images4[w].put(new byte[size]).clear(); // contents do not matter to the disk
        }
        ByteBuffer plain = Baselines.pretouched(size);
        byte[] probe = new byte[size];
        ThreadLocalRandom.current().nextBytes(probe);
        ByteBuffer image = Baselines.pretouched(size);
        image.put(probe).clear();
        for (int rep = 0; rep < reps; rep++) {
            String job = (disk ? "t1-" : "t2-") + size + "-" + rep;
            Path diskDir = disk ? Files.createDirectories(diskRoot.resolve(job)) : null;
            Path nodes = root.resolve(job);
            IntFunction<CkptOptions> options = TimedRounds.options(nodes, diskDir, 1, disk ? 1 : 0);
            try (RankThreads<TwoLevelCheckpointer> ranks = TimedRounds.ranks(n)) {
                List<TwoLevelCheckpointer> world0 = ranks.open(job, 0, options, r -> false, null, null);
                byte[][] data = new byte[n][];
                CyclicBarrier barrier = new CyclicBarrier(n);
                ranks.parallel(rank -> {
                    TwoLevelCheckpointer c = world0.get(rank);
                    byte[] d = new byte[size];
                    ThreadLocalRandom.current().nextBytes(d);
                    data[rank] = d;
                    c.register("data", d);
                    RoleSamples mine = roles.get(role(disk, rank));
                    for (int k = -1; k < rounds; k++) { // round 0: the collective first here() (store created)
                        d[Math.floorMod(k, size)] ^= 1;
                        barrier.await(TimedRounds.BOUND.toSeconds(), TimeUnit.SECONDS);
                        TimedRounds.Round timed = TimedRounds.timedRound(c, rank);
                        if (k >= 0) {
                            synchronized (mine) {
                                mine.ckpt.add(timed.hereNanos());
                                mine.ckptTotal.add(timed.replicatedNanos());
                                if (disk) {
                                    mine.flush.add(c.stats().lastFlushNanos());
                                }
                            }
                        }
                    }
                    return null;
                });
                ranks.closeAll(world0);
                // the failure: node loss of rank 1 (Table 2), of ranks 1 and 2 (Table 1: beyond m = 1)
                RankThreads.wipeNode(nodes, 1);
                if (disk) {
                    RankThreads.wipeNode(nodes, 2);
                }
                byte[][] targets = new byte[n][];
                for (int r = 0; r < n; r++) {
                    targets[r] = new byte[size];
                    Arrays.fill(targets[r], (byte) 0x5a); // touched, not the answer
                }
                long[] openNanos = new long[n];
                List<TwoLevelCheckpointer> world1 = ranks.open(job, 1, options, r -> r == 1 || disk && r == 2, null, openNanos);
                ranks.parallel(rank -> {
                    TwoLevelCheckpointer c = world1.get(rank);
                    long t0 = System.nanoTime();
                    c.rollback("data", targets[rank]);
                    long call = System.nanoTime() - t0;
                    RoleSamples mine = roles.get(role(disk, rank));
                    synchronized (mine) {
                        mine.open.add(openNanos[rank]);
                        mine.rollbackCall.add(call);
                        mine.rollbackTotal.add(openNanos[rank] + call);
                        mine.restoredFrom.add(c.restoredFrom().replaceAll("round [0-9]+", "round R"));
                        io.jckpt.CkptStats.RecoveryTimings t = c.stats().lastRecovery();
                        double[] v = {t.storeOpenNanos(), t.statusExchangeNanos(), t.planNanos(), t.transferNanos(),
                                t.verifyNanos(), t.ringJoinNanos(), t.bytesSent() + t.bytesReceived()};
                        for (int k = 0; k < v.length; k++) {
                            mine.steps[k].add(v[k]);
                        }
                        if (!Arrays.equals(targets[rank], data[rank])) {
                            mine.mismatches++;
                        }
                    }
                    return null;
                });
                ranks.closeAll(world1);
            } finally {
                if (diskDir != null) {
                    BenchSuite.deleteTree(diskDir);
                }
                io.jckpt.imem.ReplicaStore.wipe(root.resolve(job));
            }
            // the baselines of this repetition, same sizes, right after it
            for (int j = 0; j < 3; j++) {
                memcpy.add(Baselines.copy(probe, plain));
                tcp.add(jvms.transfer(size));
                if (disk) {
                    durable.add(Baselines.durableWrite(diskRoot, image, size, rep * 3 + j));
                    for (long t : Baselines.concurrentDurableWrites(writers, diskRoot, images4, size, rep * 3 + j)) {
                        durable4.add(t);
                    }
                }
            }
            if (disk) {
                Path f = diskRoot.resolve("read-probe.bin");
                Files.write(f, probe);
                for (int j = 0; j < 3; j++) {
                    read.add(Baselines.readFile(f, plain));
                }
                Files.delete(f);
            }
        }
        return new Result(size, disk, roles, memcpy, tcp, durable, read, durable4);
    }

    private static String paper(Map<String, double[]> table, String key, int col) {
        double[] v = table.get(key);
        return v == null || Double.isNaN(v[col]) ? "-" : Samples.seconds(v[col] * 1e9);
    }

    static void reportTable2(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            for (String roleName : List.of("Sender", "Recver", "Normal")) {
                RoleSamples s = r.roles().get(roleName);
                String key = Samples.size(r.size()) + " " + roleName;
                boolean ckptRow = roleName.equals("Sender");
                Samples all = ckptRow ? merged(r, PaperTables::ckptOf) : null;
                Samples allTotal = ckptRow ? merged(r, PaperTables::ckptTotalOf) : null;
                Samples base = roleName.equals("Normal") ? r.memcpy() : r.tcp();
                rows.add(List.of(Samples.size(r.size()), roleName,
                        ckptRow ? Samples.seconds(all.median()) + " (" + paper(PAPER_T2, key, 0) + ")" : "-",
                        ckptRow ? Samples.seconds(allTotal.median()) + " (" + paper(PAPER_T2, key, 1) + ")" : "-",
                        Samples.seconds(s.rollbackCall.median()) + " (" + paper(PAPER_T2, key, 2) + ")",
                        Samples.seconds(s.rollbackTotal.median()) + " [" + Samples.seconds(s.rollbackTotal.low()) + "–"
                                + Samples.seconds(s.rollbackTotal.high()) + "] (" + paper(PAPER_T2, key, 3) + ")",
                        Samples.seconds(s.open.median()),
                        (roleName.equals("Normal") ? "memcpy " : "raw TCP ") + Samples.time(base.median()),
                        Samples.ratio(s.rollbackTotal.median(), base.median()),
                        String.join(", ", s.restoredFrom) + (s.mismatches == 0 ? ", bit-identical" : ", **" + s.mismatches + " MISMATCHES**")));
            }
        }
        report.table(List.of("size", "role", "T_imem ckpt: here() blocking (paper)", "T_ckpt total: here() → replicated everywhere (paper)",
                "T_imem rollback: rollback(tag) copy (paper)", "T_rollback total: recovery open() + rollback(tag) [spread] (paper)",
                "of which open()", "baseline", "total / baseline", "restored from"), rows);
    }

    /** The recovery open() of Table 2 step by step ({@code CkptStats.lastRecovery}), medians per role. */
    static void reportSteps(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            for (String roleName : List.of("Sender", "Recver", "Normal")) {
                RoleSamples s = r.roles().get(roleName);
                List<String> row = new ArrayList<>(List.of(Samples.size(r.size()), roleName, Samples.time(s.open.median())));
                for (int k = 0; k < STEPS.size() - 1; k++) {
                    row.add(Samples.time(s.steps[k].median()));
                }
                row.add(Long.toString((long) s.steps[STEPS.size() - 1].median()));
                rows.add(row);
            }
        }
        List<String> head = new ArrayList<>(List.of("size", "role", "open() total"));
        head.addAll(STEPS);
        report.table(head, rows);
    }

    static void reportTable1(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            for (String roleName : List.of("OLD", "NEW")) {
                RoleSamples s = r.roles().get(roleName);
                String key = Samples.size(r.size()) + " " + roleName;
                boolean ckptRow = roleName.equals("OLD");
                Samples flush = ckptRow ? merged(r, x -> x.flush) : null;
                Samples total = ckptRow ? merged(r, PaperTables::ckptTotalOf) : null;
                Samples here = ckptRow ? merged(r, PaperTables::ckptOf) : null;
                rows.add(List.of(Samples.size(r.size()), roleName,
                        ckptRow ? Samples.seconds(flush.median()) + " (" + paper(PAPER_T1, key, 0) + ")" : "-",
                        ckptRow ? Samples.seconds(total.median()) + " (" + paper(PAPER_T1, key, 1) + ")" : "-",
                        ckptRow ? Samples.seconds(here.median()) : "-",
                        ckptRow ? "1 writer " + Samples.seconds(r.durable().median()) + "; flush / raw "
                                + Samples.ratio(flush.median(), r.durable().median()) : "-",
                        ckptRow ? "4 writers, each " + Samples.seconds(r.durable4().median()) + " [" + Samples.seconds(r.durable4().low())
                                + "–" + Samples.seconds(r.durable4().high()) + "]; flush / raw **"
                                + Samples.ratio(flush.median(), r.durable4().median()) + "**" : "-",
                        Samples.seconds(s.rollbackCall.median()) + " (" + paper(PAPER_T1, key, 2) + ")",
                        Samples.seconds(s.rollbackTotal.median()) + " [" + Samples.seconds(s.rollbackTotal.low()) + "–"
                                + Samples.seconds(s.rollbackTotal.high()) + "] (" + paper(PAPER_T1, key, 3) + ")",
                        "file read " + Samples.seconds(r.read().median()) + "; total / read "
                                + Samples.ratio(s.rollbackTotal.median(), r.read().median()),
                        String.join(", ", s.restoredFrom) + (s.mismatches == 0 ? ", bit-identical" : ", **" + s.mismatches + " MISMATCHES**")));
            }
        }
        report.table(List.of("size", "role", "T_stable ckpt: background flush (paper)", "T_ckpt total: here() → replicated and durable (paper)",
                "here() blocking", "baseline: raw durable write, one writer alone",
                "baseline: 4 raw durable writers at once (as the 4 ranks flush)", "T_stable rollback: rollback(tag) copy (paper)",
                "T_rollback total: recovery open() + rollback(tag) [spread] (paper)", "rollback baseline", "restored from"), rows);
    }

    private static Samples ckptOf(RoleSamples s) {
        return s.ckpt;
    }

    private static Samples ckptTotalOf(RoleSamples s) {
        return s.ckptTotal;
    }

    private static Samples merged(Result r, java.util.function.Function<RoleSamples, Samples> pick) {
        Samples all = new Samples();
        for (RoleSamples s : r.roles().values()) {
            Samples p = pick.apply(s);
            for (double v : p.values()) {
                all.add(v);
            }
        }
        return all;
    }
}
