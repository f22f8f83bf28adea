package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.policy.interval.IntervalDecision;
import io.jckpt.spi.AgentThreads;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.SizeVote;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;

/**
 * The slot-size agreement of growing slots when it does not ride on the replication ring: each here()
 * hands one exchange to a background agent ({@link AgentThreads}, thread
 * {@code jckpt-size-agreement-r<rank>}) saying whether this rank's image fit ({@link SizeVote}: 0 or the
 * image length, rank 0's interval decision, the program's step of the round), and the next here() collects
 * it ({@link #take}), comparing the ranks' steps ({@link StepCheck}); a rank
 * whose image did not fit skipped the round, so that round is complete nowhere
 * ({@link #newestWrittenEverywhere}).
 *
 * <p>At most one agreement is in flight; it is joined (bounded) before any other exchange of the
 * rank, so that the exchanges stay in the same order on every rank. The agent runs the exchanges
 * handed to it one at a time, waiting for the next at most {@value #IDLE_WAIT_MILLIS} ms per duty
 * cycle; it is started at the first use and stopped by {@link #close()}. The decision logic
 * ({@link #needs}, {@link #largest}, {@link #sizedFor}) is pure.
 */
final class SizeAgreement {
    /** Slot capacities are multiples of this. */
    static final long CAPACITY_ALIGN = 4096;
    /** Longest single wait of the agent for an exchange to run. */
    static final long IDLE_WAIT_MILLIS = 100;
    /** How long {@link #close()} waits for the agent to stop. */
    private static final long CLOSE_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(5);
    /** Handed to the agent by {@link #close()} to end its wait for work at once; never run. */
    private static final FutureTask<List<SizeVote>> WAKE = new FutureTask<>(() -> null);

    private final int rank;
    private final int epoch;
    private final RankCollective exchange;
    /** The agreements handed to the agent, not yet taken by it. */
    private final LinkedBlockingQueue<FutureTask<List<SizeVote>>> handedOver = new LinkedBlockingQueue<>();
    /** The agreement the agent runs now, or null: close() interrupts it. */
    private volatile FutureTask<List<SizeVote>> running;
    /** Set by close(): the agent runs no further agreement. */
    private volatile boolean closed;
    /** The agent running the agreements; started at the first use. */
    private AgentRunner agent;
    /** The agreement of the newest round, in flight; joined before any other exchange. */
    private Future<List<SizeVote>> inFlight;
    /** Its result, once joined and not yet used by the next here(). */
    private List<SizeVote> agreed;
    /** The round the agreement in flight is about. */
    private long agreementRound;
    /** The newest round some rank skipped (complete nowhere), known from the agreements; -1 = none. */
    private long incompleteRound = -1;

    SizeAgreement(int rank, int epoch, RankCollective exchange) {
        this.rank = rank;
        this.epoch = epoch;
        this.exchange = exchange;
    }

    /** @return per rank, the image length that did not fit its slot, else 0 */
    static long[] needs(List<SizeVote> agreed) {
        return agreed.stream().mapToLong(SizeVote::overflow).toArray();
    }

    /** @return the rank with the largest need (the lowest on a tie), or -1 when every image fit */
    static int largest(long[] needs) {
        long need = 0;
        int needRank = -1;
        for (int r = 0; r < needs.length; r++) {
            if (needs[r] > need) {
                need = needs[r];
                needRank = r;
            }
        }
        return needRank;
    }

    /** @return the slot capacity for the largest image: x 1.25, 4 KiB aligned (room to grow a little without a switch) */
    static long sizedFor(long largest) {
        long capacity = ((largest + largest / 4 + CAPACITY_ALIGN - 1) / CAPACITY_ALIGN) * CAPACITY_ALIGN;
        return Math.max(capacity, CAPACITY_ALIGN);
    }

    /**
     * Hands the size agreement of round {@code round + 1} (called in here() before the round is counted)
     * to the background agent. Bounded like here()'s own wait for the previous round: the slowest rank
     * may reach this here() up to hereWaitTimeout later.
     *
     * @param round    the current round
     * @param overflow 0 when this rank's image fit, else its length
     * @param decision rank 0's interval decision riding along; {@link IntervalDecision#NONE} elsewhere
     * @param step     the program's step at round {@code round + 1}
     * @param options  the bounds
     */
    void start(long round, long overflow, long decision, long step, CkptOptions options) {
        if (closed) {
            throw new CkptStateException("rank " + rank + ": the size agreement of round " + (round + 1)
                    + " started after the checkpointer released its threads");
        }
        if (agent == null) {
            agent = AgentThreads.start(new Exchanges());
        }
        SizeVote mine = new SizeVote(overflow, decision, step);
        agreementRound = round + 1;
        Duration bound = options.exchangeTimeout().plus(options.hereWaitTimeout());
        long about = agreementRound;
        FutureTask<List<SizeVote>> task = new FutureTask<>(() -> {
            // this thread is not fenced like the program's: a late task of an abandoned world must not
            // take part in the next world's exchanges
            JobServices services = JobServices.current();
            if (services != null && services.context().epoch() != epoch) {
                throw new CkptStateException("rank " + rank + ": the size agreement of round " + about
                        + " belongs to world " + epoch + ", abandoned after a failure");
            }
            return SizeVote.EXCHANGE.allgather(exchange, mine, about, bound);
        });
        inFlight = task;
        handedOver.add(task);
    }

    /**
     * Waits (bounded) for the agreement in flight, keeping its result for the next here(), and compares
     * the ranks' steps of its round.
     *
     * @param round   the current round, for the errors
     * @param options the bounds
     * @throws io.jckpt.StepMismatchException on every rank, when the ranks' steps of that round differ
     */
    void join(long round, CkptOptions options) {
        if (inFlight == null) {
            return;
        }
        Future<List<SizeVote>> pending = inFlight;
        inFlight = null;
        try {
            agreed = pending.get(options.exchangeTimeout().plus(options.hereWaitTimeout()).toNanos() + 1_000_000_000L,
                    TimeUnit.NANOSECONDS);
            if (agreed.stream().anyMatch(vote -> vote.overflow() > 0)) {
                incompleteRound = agreementRound;
            }
            StepCheck.compare(rank, agreementRound, StepCheck.steps(agreed, SizeVote::step),
                    "at checkpoint round " + agreementRound);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof CkptException ce ? ce : new CkptException("rank " + rank
                    + ": the size agreement of round " + round + " failed: " + cause, cause);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw new CkptException("rank " + rank + ": the size agreement of round " + round + " did not complete", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank + ": interrupted in the size agreement of round " + round, e);
        }
    }

    /** @return the previous round's agreement (joined now if still in flight), or null; consumed */
    List<SizeVote> take(long round, CkptOptions options) {
        join(round, options);
        List<SizeVote> result = agreed;
        agreed = null;
        return result;
    }

    /** @return the newest round every rank wrote: {@code round}, or the one before when some rank skipped it */
    long newestWrittenEverywhere(long round, CkptOptions options) {
        join(round, options);
        return round == incompleteRound ? round - 1 : round;
    }

    /**
     * As {@link #newestWrittenEverywhere(long, CkptOptions)}, learnt from the ring when the agreement
     * rides on it.
     *
     * @param ring the agent when the agreement rides on the ring, else null
     * @return the newest round every rank wrote; -1 if that is not known within {@code timeout}
     */
    long newestWrittenEverywhere(long round, Duration timeout, ReplicationAgent ring, CkptOptions options)
            throws IOException, InterruptedException {
        if (inFlight == null && agreed == null && ring != null) {
            long[] needs = ring.awaitSettled(round, timeout);
            if (needs == null) {
                return -1;
            }
            for (long x : needs) {
                if (x > 0) {
                    return round - 1;
                }
            }
            return round;
        }
        return newestWrittenEverywhere(round, options);
    }

    /** @return whether rank 0's decision taken at the here() of {@code round} travels with an agreement */
    boolean carriesDecisionOf(long round) {
        return inFlight != null || agreed != null && agreementRound == round;
    }

    /** @return rank 0's decision of {@code round} from the agreement (joined now), or {@link IntervalDecision#NONE} */
    long decisionOf(long round, CkptOptions options) {
        join(round, options);
        return agreed != null && agreementRound == round ? agreed.get(0).decision() : IntervalDecision.NONE;
    }

    /**
     * Stops the agent, interrupting the agreement it runs: an exchange of an abandoned world or a crash
     * never completes (waits at most 5 s). Agreements handed over and not started are dropped.
     */
    void close() {
        closed = true;
        if (agent == null) {
            return;
        }
        FutureTask<List<SizeVote>> current = running;
        if (current != null) {
            current.cancel(true);
        }
        handedOver.clear();
        handedOver.add(WAKE);
        AgentThreads.close(agent, CLOSE_WAIT_MILLIS);
    }

    /** The agent: runs the agreements handed to it, one per duty cycle, until closed. */
    private final class Exchanges implements Agent {
        @Override
        public String roleName() {
            return "jckpt-size-agreement-r" + rank;
        }

        @Override
        public int doWork() throws InterruptedException {
            FutureTask<List<SizeVote>> next = handedOver.poll(IDLE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            if (closed) {
                throw new AgentTerminationException();
            }
            if (next == null) {
                return 0;
            }
            running = next;
            if (closed) { // close() may have looked for the running agreement just before it was set
                running = null;
                throw new AgentTerminationException();
            }
            try {
                next.run();
            } finally {
                running = null;
                // a join that timed out cancelled its agreement by interrupting it: that ends the
                // agreement, not the agent (close ends the agent with its flag)
                Thread.interrupted();
            }
            return 1;
        }
    }
}
