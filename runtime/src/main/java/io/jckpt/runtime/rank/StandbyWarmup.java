package io.jckpt.runtime.rank;

import io.jckpt.Checkpointer;
import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a warm standby does before it says it is ready: a rehearsal of the library on two ranks
 * that are threads of the standby (open, register, here() with ring replication and a disk
 * generation, close, then a recovery in which one rank lost its store and receives its copy,
 * rollback, close), all in a scratch directory of its own that it deletes afterwards. It loads
 * and initialises the library's classes (Chronicle Bytes, the object graph codec, the in-memory and
 * disk levels) and gives the JIT a first look at the paths a replacement rank runs, so that the rank it later
 * becomes does not pay for them on the recovery's critical path. It never touches the job's
 * stores, its status exchange or the launcher.
 */
final class StandbyWarmup {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int RANKS = 2;
    /** The rehearsal's own job key (it is no job: its checkpoints are authenticated like any, with this). */
    private static final byte[] REHEARSAL_KEY = io.jckpt.image.ImageKey.newJobKey();

    private StandbyWarmup() {
    }

    /**
     * Runs the rehearsal in {@code scratch} (created and deleted here); bounded.
     *
     * @param bindHost the address the rehearsal's data endpoints bind: the standby's host's, as the
     *     ranks' (on a host reachable only through its own address, loopback would not connect)
     * @return {@code null} when it went through, else why not (the standby is still useful: only
     *     less warm)
     */
    static String rehearse(Path scratch, String bindHost) {
        AtomicInteger k = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(RANKS, r -> {
            Thread t = new Thread(r, "jckpt-standby-rehearsal-" + k.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        try {
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            world(pool, scratch, secret, bindHost, 0);
            delete(scratch.resolve("node-1")); // rank 1's node lost: it receives its copy from rank 0
            world(pool, scratch, secret, bindHost, 1);
            return null;
        } catch (Exception e) {
            return e.toString();
        } finally {
            pool.shutdownNow();
            delete(scratch);
        }
    }

    private static void world(ExecutorService pool, Path scratch, byte[] secret, String bindHost, int epoch)
            throws Exception {
        List<LocalRankCollective> exchanges = LocalRankCollective.group(RANKS);
        List<Future<Void>> ranks = new ArrayList<>();
        for (int rank = 0; rank < RANKS; rank++) {
            int r = rank;
            ranks.add(pool.submit(() -> {
                rank(scratch, secret, bindHost, epoch, r, exchanges.get(r));
                return null;
            }));
        }
        long deadline = System.nanoTime() + BOUND.toNanos();
        for (Future<Void> rank : ranks) {
            try {
                rank.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception c ? c : e;
            } catch (TimeoutException e) {
                throw new TimeoutException("standby rehearsal did not finish within " + BOUND.toSeconds() + " s");
            }
        }
    }

    private static void rank(Path scratch, byte[] secret, String bindHost, int epoch, int rank,
                             LocalRankCollective exchange) {
        CkptOptions options = CkptOptions.builder().replicas(1).diskRatio(2).memoryDirectory(scratch.resolve("node-" + rank))
                .diskDirectory(scratch.resolve("disk")).kryoRegistrationRequired(false).maxMemoryBytes(64L << 20)
                .exchangeTimeout(BOUND).replicationTimeout(BOUND).hereWaitTimeout(BOUND).build();
        RankContext context = RankContext.builder().rank(rank).size(RANKS).jobId("rehearsal").epoch(epoch)
                .recovery(epoch > 0).newRank(epoch > 0 && rank == 1).build();
        Checkpointer c = TwoLevelCheckpointer.open(options, context, exchange, secret, REHEARSAL_KEY, bindHost, null);
        try {
            double[] grid = new double[32 * 1024];
            int[] sweep = {0};
            ArrayList<String> notes = new ArrayList<>(List.of("rehearsal", Integer.toString(rank)));
            if (c.isRecovery()) {
                c.rollback("grid", grid);
                c.rollback("sweep", sweep);
                notes = c.rollback("notes", notes);
            } else {
                c.register("grid", grid);
                c.register("sweep", sweep);
                c.register("notes", notes);
            }
            for (int round = 0; round < 4; round++) {
                sweep[0]++;
                java.util.Arrays.fill(grid, sweep[0] + rank);
                notes.add(Integer.toString(sweep[0]));
                c.here();
            }
        } finally {
            c.close();
        }
    }

    private static void delete(Path dir) {
        try {
            ReplicaStore.wipe(dir);
        } catch (IOException e) {
            // a scratch directory left behind lies inside the job's directory, deleted with the job
        }
    }
}
