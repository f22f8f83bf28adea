package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import io.jckpt.spi.Collective;
import io.jckpt.spi.RankCollective;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.DataAddress;
import io.jckpt.wire.RankStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The in-memory level's recovery steps on one rank, over the job's {@link RankCollective}: exchange the
 * verified status of every store, compute the (identical) plan, and run the transfers. Each step that
 * exchanges takes the {@link Collective} its exchanges make (the caller's kind and round: every rank
 * makes the same calls in the same order, which the collective checks). The policy layer calls
 * {@link #plan} first; if the plan is NOT_RECOVERABLE it goes to the disk level instead, else it calls
 * {@link #restore} and then reads the returned slot's image.
 */
public final class ImemRecovery {
    private ImemRecovery() {
    }

    /**
     * Exchanges every rank's store status and plans the rollback (a collective: every rank calls it).
     *
     * @param exchange the ranks' collective
     * @param call     the collective every exchange of this step makes
     * @param store    this rank's store (every copy is re-verified)
     * @param fresh    whether this process was re-spawned
     * @param timeout  bound on the exchange
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, ReplicaStore store, boolean fresh,
                                    Duration timeout) throws IOException {
        return plan(exchange, call, store, fresh, timeout, new RecoverySteps(false));
    }

    /**
     * Exchanges every rank's store status and plans the rollback (a collective), recording the steps.
     *
     * @param exchange the ranks' collective
     * @param call     the collective every exchange of this step makes
     * @param store    this rank's store
     * @param fresh    whether this process was re-spawned
     * @param timeout  bound on the exchange
     * @param steps    records the times; its {@code trustVerification} says whether copies verified
     *                 at the store's open are read again
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, ReplicaStore store, boolean fresh,
                                    Duration timeout, RecoverySteps steps) throws IOException {
        return plan(exchange, call, store.rank(), List.of(store), fresh, timeout, steps, null, store.config().ring());
    }

    /**
     * Exchanges the status of every store of every rank and plans the rollback (a collective). A rank
     * may hold several stores, e.g. the old and the new layout when a failure hits a change of m or of
     * the slot capacity; its status is the union of their copies (their rounds do not overlap). A rank
     * whose node-local memory was lost passes no store.
     *
     * @param exchange the ranks' collective
     * @param call     the collective every exchange of this step makes
     * @param rank     this rank
     * @param stores   this rank's stores, possibly none (every copy is re-verified)
     * @param fresh    whether this process was re-spawned
     * @param timeout  bound on the exchange
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, int rank, List<ReplicaStore> stores,
                                    boolean fresh, Duration timeout) throws IOException {
        return plan(exchange, call, rank, stores, fresh, timeout, new RecoverySteps(false));
    }

    /**
     * As {@link #plan(RankCollective, Collective, int, List, boolean, Duration)}, recording the steps.
     *
     * @param exchange the ranks' collective
     * @param call     the collective every exchange of this step makes
     * @param rank     this rank
     * @param stores   this rank's stores, possibly none
     * @param fresh    whether this process was re-spawned
     * @param timeout  bound on the exchange
     * @param steps    records the times; its {@code trustVerification} says whether copies verified
     *                 at the stores' open are read again
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, int rank, List<ReplicaStore> stores,
                                    boolean fresh, Duration timeout, RecoverySteps steps) throws IOException {
        return plan(exchange, call, rank, stores, fresh, timeout, steps, null);
    }

    /**
     * This rank's status with the copies verified so far (per owner the newest intact one, after an
     * open with NEWEST_PER_OWNER): what the first step of {@link #plan} exchanges. A caller that has
     * an exchange of its own at open carries it there and passes every rank's to {@link #plan}, which
     * then needs no exchange unless that plan is not conclusive.
     *
     * @param rank   this rank
     * @param stores this rank's stores, possibly none
     * @param fresh  whether this process was re-spawned
     * @return the status
     */
    public static RankStatus newestCopiesStatus(int rank, List<ReplicaStore> stores, boolean fresh) {
        List<CopyStatus> copies = new ArrayList<>();
        for (ReplicaStore store : stores) {
            copies.addAll(store.copies(ReplicaStore.CopyRead.NONE));
        }
        return new RankStatus(rank, fresh, copies);
    }

    /**
     * As {@link #plan(RankCollective, Collective, int, List, boolean, Duration, RecoverySteps)}, with the first
     * step's statuses already gathered ({@link #newestCopiesStatus} of every rank, indexed by rank),
     * or {@code null} to exchange them.
     *
     * @param exchange        the ranks' collective (used only when the first plan is not conclusive)
     * @param call            the collective every exchange of this step makes
     * @param rank            this rank
     * @param stores          this rank's stores, possibly none
     * @param fresh           whether this process was re-spawned
     * @param timeout         bound on an exchange
     * @param steps           records the times
     * @param newestStatuses  every rank's newest-copies status, or null
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, int rank, List<ReplicaStore> stores,
                                    boolean fresh, Duration timeout, RecoverySteps steps, List<RankStatus> newestStatuses)
            throws IOException {
        return plan(exchange, call, rank, stores, fresh, timeout, steps, newestStatuses, null);
    }

    /**
     * As {@link #plan(RankCollective, Collective, int, List, boolean, Duration, RecoverySteps, List)} on the
     * given replication ring: a rank that lost its copy receives from its nearest holder after it on
     * that ring. Every rank must pass the same ring, the one its stores were made with.
     *
     * @param exchange        the ranks' collective (used only when the first plan is not conclusive)
     * @param call            the collective every exchange of this step makes
     * @param rank            this rank
     * @param stores          this rank's stores, possibly none; each made for {@code ring}
     * @param fresh           whether this process was re-spawned
     * @param timeout         bound on an exchange
     * @param steps           records the times
     * @param newestStatuses  every rank's newest-copies status, or null
     * @param ring            the job's ring, or null for the identity (rank order)
     * @return the plan, identical on every rank
     * @throws IOException if the statuses do not fit the ranks or the ring (a malformed status is an
     *                     {@link io.jckpt.wire.WireFormatException} naming the rank; a failed exchange throws the
     *                     collective's {@link io.jckpt.ExchangeTimeoutException} or
     *                     {@link io.jckpt.CollectiveMismatchException})
     * @throws IllegalArgumentException if a store is another rank's or was made for another ring
     */
    public static RollbackPlan plan(RankCollective exchange, Collective call, int rank, List<ReplicaStore> stores,
                                    boolean fresh, Duration timeout, RecoverySteps steps, List<RankStatus> newestStatuses,
                                    RingOrder ring)
            throws IOException {
        for (ReplicaStore store : stores) {
            if (store.rank() != rank) {
                throw new IllegalArgumentException("store of rank " + store.rank() + " passed as rank " + rank + "'s");
            }
            RingOrder made = store.config().ring();
            if (ring != null ? !made.equals(ring) : !made.isIdentity()) {
                throw new IllegalArgumentException("rank " + rank + ": store made for the ring " + made.text()
                        + ", planned on the ring " + (ring != null ? ring.text() : "of rank order"));
            }
        }
        if (!steps.trustVerification) {
            return planOnce(exchange, call, rank, stores, fresh, timeout, steps, ReplicaStore.CopyRead.AGAIN, null,
                    ring);
        }
        // First with the copies verified so far (per owner the newest intact one, after an open with
        // NEWEST_PER_OWNER). That plan is taken when it restores, every surviving rank restores
        // from its own store, and no copy was found damaged: then every survivor's newest copy is
        // the round, no holder has a newer one (holders never get a round before its owner's own
        // copy is complete), so no older copy could give a newer round or spare a transfer. Else
        // every copy is read and the ranks plan again. The statuses are the same on every rank, so
        // all take the second exchange or none.
        List<RankStatus> seen = new ArrayList<>();
        RollbackPlan first = newestStatuses != null ? planFrom(newestStatuses, steps, seen, ring)
                : planOnce(exchange, call, rank, stores, fresh, timeout, steps, ReplicaStore.CopyRead.NONE, seen, ring);
        if (first.recoverable() && conclusive(first, seen)) {
            return first;
        }
        return planOnce(exchange, call, rank, stores, fresh, timeout, steps, ReplicaStore.CopyRead.ONCE, null, ring);
    }

    private static boolean conclusive(RollbackPlan plan, List<RankStatus> statuses) {
        for (RankStatus st : statuses) {
            if (!st.fresh() && plan.action(st.rank()).kind() != RestoreAction.Kind.LOCAL) {
                return false;
            }
            for (CopyStatus c : st.copies()) {
                if (!c.intact()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** One status exchange and plan, with the copies as {@code read} says; the statuses go to {@code seen} when not null. */
    private static RollbackPlan planOnce(RankCollective exchange, Collective call, int rank, List<ReplicaStore> stores,
                                         boolean fresh, Duration timeout, RecoverySteps steps,
                                         ReplicaStore.CopyRead read, List<RankStatus> seen, RingOrder ring)
            throws IOException {
        long t0 = System.nanoTime();
        List<CopyStatus> copies = new ArrayList<>();
        for (ReplicaStore store : stores) {
            copies.addAll(store.copies(read));
        }
        RankStatus mine = new RankStatus(rank, fresh, copies);
        long t1 = System.nanoTime();
        List<RankStatus> all = RankStatus.EXCHANGE.allgather(exchange, call, mine, timeout);
        long t2 = System.nanoTime();
        steps.statusExchangeNanos += t2 - t1;
        steps.planNanos += t1 - t0;
        return planFrom(all, steps, seen, ring);
    }

    /** The plan from every rank's status (indexed by rank); the statuses go to {@code seen} when not null. */
    private static RollbackPlan planFrom(List<RankStatus> statuses, RecoverySteps steps, List<RankStatus> seen,
                                         RingOrder ring) throws ReplicationException {
        long t2 = System.nanoTime();
        if (ring != null && ring.size() != statuses.size()) {
            throw new ReplicationException("ring " + ring.text() + " of " + ring.size() + " ranks, but " + statuses.size()
                    + " ranks exchanged their status");
        }
        RollbackPlan plan = ring != null ? RollbackPlanner.plan(statuses, ring) : RollbackPlanner.plan(statuses);
        steps.planNanos += System.nanoTime() - t2;
        if (seen != null) {
            seen.addAll(statuses);
        }
        return plan;
    }

    /**
     * Exchanges the data endpoints' addresses (a collective).
     *
     * @param exchange the ranks' collective
     * @param call     the collective every exchange of this step makes
     * @param endpoint this rank's endpoint
     * @param timeout  bound on the exchange
     * @return every rank's address, indexed by rank
     * @throws io.jckpt.wire.WireFormatException naming the rank whose address is malformed (a failed exchange
     *         throws the collective's {@link io.jckpt.ExchangeTimeoutException} or
     *         {@link io.jckpt.CollectiveMismatchException})
     */
    public static InetSocketAddress[] addresses(RankCollective exchange, Collective call, DataEndpoint endpoint,
                                                Duration timeout) {
        return DataAddress.EXCHANGE.allgather(exchange, call, new DataAddress(endpoint.address()), timeout).stream()
                .map(DataAddress::address).toArray(InetSocketAddress[]::new);
    }

    /**
     * Runs this rank's part of a recoverable plan (a collective).
     *
     * @param plan      the plan
     * @param store     this rank's store
     * @param endpoint  this rank's endpoint
     * @param addresses every rank's endpoint address
     * @param timeout   bound on the transfers
     * @return the verified slot holding this rank's image of the plan's round
     * @throws ReplicationException if a transfer fails
     */
    public static ReplicaSlot restore(RollbackPlan plan, ReplicaStore store, DataEndpoint endpoint,
                                      InetSocketAddress[] addresses, Duration timeout) throws ReplicationException {
        return RollbackTransfer.execute(plan, store, endpoint, addresses, timeout);
    }

    /**
     * Runs this rank's part of a recoverable plan (a collective), recording the steps.
     *
     * @param plan      the plan
     * @param store     this rank's store
     * @param endpoint  this rank's endpoint
     * @param addresses every rank's endpoint address
     * @param timeout   bound on the transfers
     * @param steps     records the transfer and verification
     * @return the verified slot holding this rank's image of the plan's round
     * @throws ReplicationException if a transfer fails
     */
    public static ReplicaSlot restore(RollbackPlan plan, ReplicaStore store, DataEndpoint endpoint,
                                      InetSocketAddress[] addresses, Duration timeout, RecoverySteps steps)
            throws ReplicationException {
        return RollbackTransfer.execute(plan, store, endpoint, addresses, timeout, steps);
    }
}
