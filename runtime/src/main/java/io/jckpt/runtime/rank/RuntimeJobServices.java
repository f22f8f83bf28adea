package io.jckpt.runtime.rank;

import io.jckpt.CkptException;
import io.jckpt.ExchangeTimeoutException;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.StatusExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** The library's view of a rank started by the launcher: {@link JobServices} over {@link RankControl}. */
final class RuntimeJobServices implements JobServices, StatusExchange {
    private final RankControl control;
    private final int size;
    private final String jobId;
    private final byte[] secret;
    private final ProgressReporter progress;

    RuntimeJobServices(RankControl control, RankEnvironment env) {
        this.control = control;
        this.size = env.size();
        this.jobId = env.jobId();
        this.secret = java.util.HexFormat.of().parseHex(env.require(RankEnvironment.SECRET));
        String heartbeat = System.getenv(RankEnvironment.HEARTBEAT_MILLIS);
        this.progress = new ProgressReporter(control, heartbeat == null ? 0 : Long.parseLong(heartbeat));
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
                .newRank(world.newRank()).recovery(world.recovery()).build();
    }

    @Override
    public StatusExchange exchange() {
        return this;
    }

    @Override
    public byte[] jobSecret() {
        return secret.clone();
    }

    @Override
    public String bindHost() {
        return "127.0.0.1";
    }

    @Override
    public void event(String text) {
        control.event(text);
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
    public byte[][] allgather(byte[] mine, Duration timeout) {
        RankServices.checkCurrentWorld(); // a thread of an abandoned world must not take part
        try {
            return control.allgather(mine, timeout);
        } catch (TimeoutException e) {
            throw new ExchangeTimeoutException(control.rank(), timeout, List.of());
        } catch (IOException e) {
            throw new CkptException("status exchange of rank " + control.rank() + " failed: " + e.getMessage(), e);
        }
    }
}

