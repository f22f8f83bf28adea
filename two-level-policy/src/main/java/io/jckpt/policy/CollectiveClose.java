package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.disk.DiskCommitCoordinator;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.CloseCheck;
import io.jckpt.wire.CloseSettled;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collective part of close() (as MPI_Ckpt_close): the last round must be complete everywhere, and
 * every rank must know it, before any rank leaves the ring, or a neighbour still waiting for its last
 * round would lose its successor. Two exchanges after the size agreement in flight is joined: CLOSE
 * (every rank closes at the same round: a rank that skipped a here() is named now, not after waiting
 * for a round it will never take; it carries the step of each rank's last here(), compared too), then
 * CLOSE_SETTLED (every rank's flushes are over: what is not
 * durable then never will be, and the disk coordinator stops waiting for it). The retiring store of a
 * switch goes once the newest round is known complete in the current layout.
 */
final class CollectiveClose {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);

    private final int rank;
    private final RankCollective exchange;
    private final SizeAgreement agreement;
    private final LayoutSwitcher switcher;

    CollectiveClose(int rank, RankCollective exchange, SizeAgreement agreement, LayoutSwitcher switcher) {
        this.rank = rank;
        this.exchange = exchange;
        this.agreement = agreement;
        this.switcher = switcher;
    }

    /**
     * @param round           the round every rank must close at
     * @param step            the program's step at that round (its last here())
     * @param options         the bounds
     * @param disk            the disk level, or null
     * @throws InterruptedException if interrupted while waiting for the flusher
     * @throws io.jckpt.StepMismatchException on every rank, when the ranks' steps of their last here() differ
     */
    void run(long round, long step, CkptOptions options, DiskCommitCoordinator disk) throws InterruptedException {
        agreement.join(round, options); // before the exchanges below: one at a time, in the same order everywhere
        List<CloseCheck> closing = CloseCheck.EXCHANGE.allgather(exchange, new CloseCheck(step), round,
                options.exchangeTimeout());
        StepCheck.compare(rank, round, StepCheck.steps(closing, CloseCheck::step), "at close() after round " + round);
        ReplicationAgent agent = switcher.agent();
        // without an agent this rank's newest copy is sealed in the background: complete before close goes on
        boolean sealed = agent != null || ownCommitted(options.replicationTimeout());
        boolean replicated = agent == null ? sealed : agent.failure() != null
                || awaitReplicated(round, options.replicationTimeout(), options, disk);
        if (!replicated) {
            LOG.warn("rank {}: round {} not replicated everywhere within {} ms at close", rank, round,
                    options.replicationTimeout().toMillis());
        }
        StoreLayout layout = switcher.layout();
        if (replicated && layout != null && round >= layout.firstRound() && agent != null && agent.failure() == null) {
            switcher.retiringCompleteAtClose(); // the newest round is complete everywhere, in the current layout
        }
        boolean flushed = disk == null || disk.awaitIdle(options.replicationTimeout());
        List<CloseSettled> all = CloseSettled.EXCHANGE.allgather(exchange, new CloseSettled(flushed, sealed), round,
                options.exchangeTimeout());
        boolean settled = all.stream().allMatch(CloseSettled::flushed);
        boolean sealedEverywhere = all.stream().allMatch(CloseSettled::sealed);
        if (disk != null) {
            disk.flushesSettled(settled); // no rank has a flush left: what is not durable now never will be
        }
        if (agent == null && layout != null && round >= layout.firstRound() && sealedEverywhere) {
            switcher.retiringCompleteAtClose(); // every rank reached close with its own copy complete
        }
    }

    /** @return whether this rank's own writes handed to its store's sealing agent are all complete (bounded) */
    private boolean ownCommitted(java.time.Duration timeout) throws InterruptedException {
        io.jckpt.imem.ReplicaStore store = switcher.store();
        return store == null || store.awaitCommitted(timeout);
    }

    /**
     * The checkpointer's awaitReplicated: waits (bounded) until the newest round every rank took is
     * replicated on every rank and, when it is a disk round, durable on disk here.
     *
     * @return whether that state was reached within {@code timeout}
     */
    boolean awaitReplicated(long round, Duration timeout, CkptOptions options, DiskCommitCoordinator disk) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            long newest = agreement.newestWrittenEverywhere(round, timeout, switcher.ringAgreement(), options);
            ReplicationAgent agent = switcher.agent();
            if (newest < 0 || agent != null && !agent.awaitGloballyCompleted(newest, timeout)
                    || agent == null && !ownCommitted(timeout)) {
                return false;
            }
            return disk == null || disk.awaitIdle(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (IOException e) {
            // a ring a peer closed after the ranks' calls failed: say why, as every rank does
            throw LayoutSwitcher.ringFailure(exchange, "rank " + rank + ": replication of round " + round + " failed: "
                    + e.getMessage(), e);
        }
    }
}
