package io.jckpt.policy;

import io.jckpt.Checkpointer;
import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.spi.CheckpointerProvider;
import io.jckpt.spi.Collective;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankCollective;
import java.time.Duration;

/**
 * The standard {@link CheckpointerProvider}: the {@link TwoLevelCheckpointer}, wired to the job's
 * runtime ({@link JobServices}: status exchange through the launcher, job secret, event log). A
 * single-rank program runs without the launcher too.
 */
public final class TwoLevelProvider implements CheckpointerProvider {

    @Override
    public Checkpointer create(CkptOptions options, RankContext context) {
        JobServices services = JobServices.current();
        if (services != null) {
            return TwoLevelCheckpointer.open(options, context, services.collective(), services.jobSecret(),
                    services.jobKey(), services.bindHost(), services::event);
        }
        if (context.size() != 1) {
            throw new CkptException("rank " + context.rank() + " of " + context.size()
                    + ": no status exchange between ranks; start the program with bin/ckpt-run");
        }
        // no launcher: the job key from JCKPT_JOB_KEY, else the job's key file (JobKeys)
        return TwoLevelCheckpointer.open(options, context, new SingleRankExchange(), new byte[32], null, "127.0.0.1", null);
    }

    @Override
    public String name() {
        return "two-level";
    }

    @Override
    public int priority() {
        return 100;
    }

    /** The exchange of a world of one. */
    private static final class SingleRankExchange implements RankCollective {
        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int worldSize() {
            return 1;
        }

        @Override
        public byte[][] allgather(Collective call, byte[] mine, Duration timeout) {
            return new byte[][] {mine.clone()};
        }
    }
}
