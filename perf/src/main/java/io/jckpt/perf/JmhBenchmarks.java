package io.jckpt.perf;

import io.jckpt.CkptOptions;
import io.jckpt.IntervalPolicy;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import io.jckpt.testkit.Baselines;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH micro benchmarks (run by {@link JmhSection}, forked JVMs): here() of one rank that keeps its
 * checkpoint in its node-local store only (n = 1, m = 0: no replication agent; its store's sealing
 * agent computes each round's MAC and CRC32C), against its physical baselines, the memcpy of the same
 * bytes into a pre-touched direct buffer and the CRC32C of the same bytes. {@link #here} is the
 * blocking part of here() with the previous round sealed, as in a program that computes between its
 * checkpoints; {@link #hereBackToBack} calls here() back to back, so each call also waits for the
 * previous round's seal (the throughput of checkpointing, not what a program blocks for).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JmhBenchmarks {
    /** Checkpointed bytes (set by the runner). */
    @Param({"40000"})
    public int size;

    private byte[] data;
    private ByteBuffer direct;
    private Path store;
    private TwoLevelCheckpointer ckpt;
    private int flip;

    /**
     * Opens a one-rank world with its own store under /dev/shm.
     *
     * @throws Exception when the store cannot be created
     */
    @Setup(Level.Trial)
    public void open() throws Exception {
        data = new byte[size];
        new Random(size).nextBytes(data);
        direct = Baselines.pretouched(size);
        direct.put(data).clear();
        store = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-jmh-");
        CkptOptions options = CkptOptions.builder().replicas(0).memoryDirectory(store).diskRatio(0)
                .maxMemoryBytes(1L << 30).build();
        RankContext context = RankContext.builder().rank(0).size(1).jobId("jmh-" + size).epoch(0).build();
        ckpt = TwoLevelCheckpointer.open(options, context, LocalRankCollective.group(1).get(0), new byte[32],
                io.jckpt.image.ImageKey.newJobKey(), "127.0.0.1", null);
        ckpt.register("data", data);
        ckpt.here(); // the first here() of a job creates the store
    }

    /**
     * Closes the world and deletes its store.
     *
     * @throws IOException when the store cannot be deleted
     */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        ckpt.close();
        ReplicaStore.wipe(store);
    }

    /** The baseline: the same bytes into a pre-touched direct buffer. */
    @Benchmark
    public ByteBuffer memcpy() {
        direct.clear();
        return direct.put(data, 0, size);
    }

    /** The other baseline: CRC32C of the same bytes (off-heap, as the images are). */
    @Benchmark
    public long crc32c() {
        CRC32C crc = new CRC32C();
        crc.update(direct.duplicate().clear());
        return crc.getValue();
    }

    /**
     * here() back to back: the program's array into the node-local store, image header and tag table
     * included, and the wait for the previous round's seal (MAC, CRC32C) by the store's agent.
     */
    @Benchmark
    public long hereBackToBack() {
        data[flip++ & 7] ^= 1; // the program changed its data since the last round
        ckpt.here();
        return ckpt.round();
    }

    /**
     * here() as a program blocks in it: the previous round's seal is done (awaited outside the measured
     * call), so it is the copy into the node-local store and the hand-off to the sealing agent.
     *
     * @param s the checkpointer, its previous round sealed before each call
     * @return the round
     */
    @Benchmark
    public long here(Sealed s) {
        s.data[s.flip++ & 7] ^= 1;
        s.ckpt.here();
        return s.ckpt.round();
    }

    /** A one-rank checkpointer whose previous round is sealed before each measured here() ({@link #here}). */
    @State(Scope.Thread)
    public static class Sealed {
        private byte[] data;
        private Path store;
        private TwoLevelCheckpointer ckpt;
        private int flip;

        /**
         * Opens it, with the benchmark's size.
         *
         * @param bench the benchmark's state (its size)
         * @throws Exception when the store cannot be created
         */
        @Setup(Level.Trial)
        public void open(JmhBenchmarks bench) throws Exception {
            data = bench.data.clone();
            store = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-jmh-sealed-");
            CkptOptions options = CkptOptions.builder().replicas(0).memoryDirectory(store).diskRatio(0)
                    .maxMemoryBytes(1L << 30).build();
            RankContext context = RankContext.builder().rank(0).size(1).jobId("jmh-sealed-" + bench.size).epoch(0).build();
            ckpt = TwoLevelCheckpointer.open(options, context, LocalRankCollective.group(1).get(0), new byte[32],
                    io.jckpt.image.ImageKey.newJobKey(), "127.0.0.1", null);
            ckpt.register("data", data);
            ckpt.here();
        }

        /** Waits (outside the measurement) until the previous round is sealed. */
        @Setup(Level.Invocation)
        public void sealed() {
            if (!ckpt.awaitReplicated(java.time.Duration.ofSeconds(30))) {
                throw new IllegalStateException("round " + ckpt.round() + " not sealed within 30 s");
            }
        }

        /**
         * Closes it and deletes its store.
         *
         * @throws IOException when the store cannot be deleted
         */
        @TearDown(Level.Trial)
        public void close() throws IOException {
            ckpt.close();
            ReplicaStore.wipe(store);
        }
    }

    /**
     * needCheckpoint() of a checkpointer whose policy is adaptive ({@code seconds:3600}: decided by rank 0,
     * never due within a trial), called back to back: the counter compare every iteration of a program pays
     * (target: at most 50 ns). Through the {@link io.jckpt.Checkpointer} the program holds; the static facade
     * adds its world check.
     *
     * @param s the checkpointer
     * @return the answer (consumed by JMH)
     */
    @Benchmark
    public boolean needCheckpoint(IntervalState s) {
        return s.ckpt.needCheckpoint();
    }

    /** A one-rank checkpointer with an adaptive interval policy, for {@link #needCheckpoint}. */
    @State(Scope.Thread)
    public static class IntervalState {
        private Path store;
        private TwoLevelCheckpointer ckpt;

        /**
         * Opens it.
         *
         * @throws Exception when the store cannot be created
         */
        @Setup(Level.Trial)
        public void open() throws Exception {
            store = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-jmh-interval-");
            CkptOptions options = CkptOptions.builder().replicas(0).memoryDirectory(store).diskRatio(0)
                    .maxMemoryBytes(1L << 30).interval(IntervalPolicy.everySeconds(3600)).build();
            RankContext context = RankContext.builder().rank(0).size(1).jobId("jmh-interval").epoch(0).build();
            ckpt = TwoLevelCheckpointer.open(options, context, LocalRankCollective.group(1).get(0), new byte[32],
                    io.jckpt.image.ImageKey.newJobKey(), "127.0.0.1", null);
            ckpt.register("x", new long[1]);
            for (int i = 0; i < 8; i++) {
                ckpt.here(); // past the warm-up (calls 1, 2, 4, 8): the schedule holds a decided interval
            }
        }

        /**
         * Closes it and deletes its store.
         *
         * @throws IOException when the store cannot be deleted
         */
        @TearDown(Level.Trial)
        public void close() throws IOException {
            ckpt.close();
            ReplicaStore.wipe(store);
        }
    }
}
