package io.jckpt.runtime.rank;

import io.jckpt.CkptException;
import io.jckpt.CollectiveMismatchException;
import io.jckpt.ExchangeTimeoutException;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.spi.Collective;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankEvent;
import io.jckpt.spi.RankCollective;
import io.jckpt.spi.RingOrder;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** The library's view of a rank started by the launcher: {@link JobServices} over {@link RankControl}. */
final class RuntimeJobServices implements JobServices, RankCollective {
    private final RankControl control;
    private final int size;
    private final String jobId;
    private final RingOrder ring;
    private final byte[] secret;
    private final byte[] jobKey;
    private final String bindHost;
    private final ProgressReporter progress;
    private final long failureAgeMicros;
    /** Whether this JVM started as a warm standby (long before any failure it replaces a rank for). */
    private final boolean standby;

    RuntimeJobServices(RankControl control, RankEnvironment env) {
        this.control = control;
        this.size = env.size();
        this.jobId = env.jobId();
        this.ring = env.ringOrder(); // read once: the same for the job's life
        this.secret = java.util.HexFormat.of().parseHex(env.require(RankEnvironment.SECRET));
        this.jobKey = env.jobKey();
        this.bindHost = env.hostAddress();
        this.failureAgeMicros = env.failureAgeMicros();
        this.standby = env.standbyId() >= 0;
        this.progress = new ProgressReporter(control, env.heartbeatMillis(), env.launcherTimeoutMillis());
    }

    @Override
    public void checkpointed(long round, long bytes, long blockingNanos) {
        progress.checkpointed(round, bytes, blockingNanos);
    }

    /** Installs the services for the library loaded by the caller's class loader. */
    static void install(RankControl control, RankEnvironment env) {
        JobServices.install(new RuntimeJobServices(control, env));
    }

    @Override
    public RankContext context() {
        WorldInfo world = RankServices.world();
        return RankContext.builder().rank(control.rank()).size(size).jobId(jobId).epoch(world.epoch())
                .newRank(world.newRank()).recovery(world.recovery()).ring(ring).build();
    }

    @Override
    public RankCollective collective() {
        return this;
    }

    @Override
    public byte[] jobSecret() {
        return secret.clone();
    }

    @Override
    public byte[] jobKey() {
        return jobKey.clone();
    }

    @Override
    public String bindHost() {
        return bindHost;
    }

    @Override
    public void event(RankEvent event) {
        control.event(event);
    }

    @Override
    public void opened(long openNanos) {
        control.event(new RankEvent.Opened(RankServices.world().epoch(), openNanos));
    }

    @Override
    public long worldLostNanos() {
        long recovered = control.recoverNanos();
        if (recovered > 0) {
            return recovered; // a survivor or a standby: the detection, from the age the launcher's order carried
        }
        if (RankServices.world().newRank() && !standby) {
            // re-spawned: this JVM started the failure's age after its detection
            long started = System.nanoTime()
                    - java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
            return started - failureAgeMicros * 1000;
        }
        return -1; // a warm standby started long before the failure
    }

    @Override
    public void checkCurrentWorld() {
        RankServices.checkCurrentWorld();
    }

    @Override
    public int rank() {
        return control.rank();
    }

    @Override
    public int worldSize() {
        return size;
    }

    @Override
    public CkptException failure() {
        ExchangeFrames.Failed failed = control.lastFailure();
        return failed == null ? null : failedException(failed, null);
    }

    /** What a failed exchange throws on this rank: the ranks' different calls, or the ranks that did not arrive. */
    private CkptException failedException(ExchangeFrames.Failed failed, Duration timeout) {
        if (failed.mismatch()) {
            return new CollectiveMismatchException(control.rank(), failed.sequence(), failed.message());
        }
        return timeout == null ? new ExchangeTimeoutException(control.rank(), null, failed.missing())
                : new ExchangeTimeoutException(control.rank(), timeout, failed.missing(), failed.message());
    }

    @Override
    public Registration onAbandoned(int epoch, Runnable action) {
        return control.onAbandoned(epoch, action);
    }

    @Override
    public byte[][] allgather(Collective call, byte[] mine, Duration timeout) {
        // numbered in the calling thread's world: a thread of an abandoned world is refused at once
        int callerEpoch = RankServices.threadEpoch();
        try {
            TestHooks.beforeExchange(control.rank(), callerEpoch, call.kind());
            byte[][] all = control.allgather(callerEpoch, call, mine, timeout);
            TestHooks.afterExchange(control.rank(), callerEpoch, call.kind());
            return all;
        } catch (RankControl.ExchangeFailedException e) {
            throw failedException(e.failed(), timeout);
        } catch (TimeoutException e) {
            throw new ExchangeTimeoutException(control.rank(), timeout, List.of(), e.getMessage());
        } catch (IOException e) {
            throw new CkptException("rank " + control.rank() + ": " + call.describe() + " failed: " + e.getMessage(), e);
        }
    }
}

