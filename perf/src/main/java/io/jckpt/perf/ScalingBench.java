package io.jckpt.perf;

import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.Baselines;
import io.jckpt.testkit.RankThreads;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How the cost of a checkpoint round grows with the data size, with m and with the number of
 * ranks: n ranks as threads of this JVM through the real {@link TwoLevelCheckpointer}, every rank
 * checkpointing {@code size} bytes each round (unlike the micro section, where only rank 0 does).
 * Also here() on disk rounds vs memory-only rounds of the same run ({@link #diskRounds}).
 */
final class ScalingBench {
    /** One configuration's samples (here() of every rank; the round and agent times of every rank). */
    record Result(int size, int n, int m, Samples memcpy, Samples here, Samples agent, Samples round, Samples tcp) {
    }

    /** here() of disk rounds and of memory-only rounds, interleaved in one run. */
    record DiskResult(int size, int ratio, Samples memcpy, Samples memoryRounds, Samples diskRounds, Samples flush) {
    }

    private final Path root;
    private final Path disk;
    private final Baselines.TwoJvmPair jvms;

    ScalingBench(Path root, Path disk, Baselines.TwoJvmPair jvms) {
        this.root = root;
        this.disk = disk;
        this.jvms = jvms;
    }

    Result run(int size, int n, int m, int rounds, int warmup) throws Exception {
        Samples memcpy = new Samples();
        Samples here = new Samples();
        Samples agent = new Samples();
        Samples round = new Samples();
        Samples tcp = new Samples();
        String job = "scale-" + size + "-n" + n + "-m" + m;
        try (RankThreads<TwoLevelCheckpointer> ranks = TimedRounds.ranks(n)) {
            List<TwoLevelCheckpointer> world = ranks.open(job, 0, TimedRounds.options(root.resolve(job), null, m, 0),
                    r -> false, null, null);
            CyclicBarrier barrier = new CyclicBarrier(n);
            ByteBuffer plain = Baselines.pretouched(size);
            ranks.parallel(rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                byte[] data = new byte[size];
                ThreadLocalRandom.current().nextBytes(data);
                c.register("data", data);
                for (int i = -warmup; i < rounds; i++) {
                    data[Math.floorMod(i, size)] ^= 1;
                    barrier.await(TimedRounds.BOUND.toSeconds(), TimeUnit.SECONDS);
                    TimedRounds.Round timed = TimedRounds.timedRound(c, rank);
                    barrier.await(TimedRounds.BOUND.toSeconds(), TimeUnit.SECONDS);
                    long copy = 0;
                    long raw = 0;
                    if (rank == 0) { // the baselines, between rounds (nothing else running)
                        copy = Baselines.copy(data, plain);
                        raw = jvms.transfer(size);
                    }
                    if (i >= 0) {
                        synchronized (here) {
                            here.add(timed.hereNanos());
                            round.add(timed.replicatedNanos());
                            agent.add(c.stats().lastReplicationNanos());
                            if (rank == 0) {
                                memcpy.add(copy);
                                tcp.add(raw);
                            }
                        }
                    }
                }
                return null;
            });
            ranks.closeAll(world);
        } finally {
            io.jckpt.imem.ReplicaStore.wipe(root.resolve(job));
        }
        return new Result(size, n, m, memcpy, here, agent, round, tcp);
    }

    /**
     * 4 ranks, m = 1, disk ratio {@code ratio}: every ratio-th round is also flushed to disk. Rounds
     * interleave by construction, so disk and memory-only rounds see the same machine state.
     */
    DiskResult diskRounds(int size, int ratio, int rounds) throws Exception {
        int n = 4;
        Samples memcpy = new Samples();
        Samples mem = new Samples();
        Samples dsk = new Samples();
        Samples flush = new Samples();
        String job = "diskrounds-" + size;
        Path dir = java.nio.file.Files.createDirectories(disk.resolve(job));
        try (RankThreads<TwoLevelCheckpointer> ranks = TimedRounds.ranks(n)) {
            List<TwoLevelCheckpointer> world = ranks.open(job, 0, TimedRounds.options(root.resolve(job), dir, 1, ratio),
                    r -> false, null, null);
            CyclicBarrier barrier = new CyclicBarrier(n);
            ByteBuffer plain = Baselines.pretouched(size);
            ranks.parallel(rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                byte[] data = new byte[size];
                ThreadLocalRandom.current().nextBytes(data);
                c.register("data", data);
                for (int i = -ratio; i < rounds; i++) {
                    data[Math.floorMod(i, size)] ^= 1;
                    barrier.await(TimedRounds.BOUND.toSeconds(), TimeUnit.SECONDS);
                    long copy = rank == 0 ? Baselines.copy(data, plain) : 0;
                    TimedRounds.Round timed = TimedRounds.timedRound(c, rank);
                    if (i >= 0) {
                        boolean diskRound = c.round() % ratio == 0;
                        synchronized (mem) {
                            (diskRound ? dsk : mem).add(timed.hereNanos());
                            if (diskRound && c.stats().lastFlushNanos() > 0) {
                                flush.add(c.stats().lastFlushNanos());
                            }
                            if (rank == 0) {
                                memcpy.add(copy);
                            }
                        }
                    }
                }
                return null;
            });
            ranks.closeAll(world);
        } finally {
            io.jckpt.imem.ReplicaStore.wipe(root.resolve(job));
            BenchSuite.deleteTree(dir);
        }
        return new DiskResult(size, ratio, memcpy, mem, dsk, flush);
    }

    static void report(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(List.of(Samples.size(r.size()), Integer.toString(r.n()), Integer.toString(r.m()),
                    Integer.toString(r.here().count()), r.memcpy().timeCell(), r.here().timeCell(),
                    "**" + Samples.ratio(r.here().median(), r.memcpy().median()) + "**", r.tcp().timeCell(),
                    r.agent().timeCell(), "**" + Samples.ratio(r.agent().median(), r.tcp().median()) + "**",
                    Samples.ratio(r.agent().median(), r.m() * r.tcp().median()), r.round().timeCell()));
        }
        report.table(List.of("size per rank", "n", "m", "samples", "memcpy (baseline)", "here() blocking (every rank)",
                "here() / memcpy", "raw TCP two JVMs, same bytes (baseline)", "replication, agent time (every rank)",
                "replication / raw TCP", "replication / (m × raw TCP)", "round: here() start → replicated (wall)"), rows);
    }

    static void reportDisk(Report report, List<DiskResult> results) {
        List<List<String>> rows = new ArrayList<>();
        for (DiskResult r : results) {
            rows.add(List.of(Samples.size(r.size()), "1 in " + r.ratio(), r.memcpy().timeCell(),
                    r.memoryRounds().count() + ": " + r.memoryRounds().timeCell(),
                    r.diskRounds().count() + ": " + r.diskRounds().timeCell(),
                    "**" + Samples.ratio(r.diskRounds().median(), r.memoryRounds().median()) + "**",
                    Samples.ratio(r.memoryRounds().median(), r.memcpy().median()),
                    Samples.ratio(r.diskRounds().median(), r.memcpy().median()), r.flush().timeCell()));
        }
        report.table(List.of("size per rank", "disk rounds", "memcpy (baseline)", "here(), memory-only rounds: n, median [spread]",
                "here(), disk rounds: n, median [spread]", "disk / memory-only (target: no measurable difference)",
                "memory-only / memcpy", "disk / memcpy", "background flush of a disk round (not blocking)"), rows);
    }
}
