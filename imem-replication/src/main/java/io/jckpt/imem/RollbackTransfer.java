package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import io.jckpt.spi.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one rank's part of a {@link RollbackPlan} over the data channel: every rank first
 * discards copies newer than the plan's round; each sender sends its copy of round R to each of its
 * targets (nearest first) and waits for their ACK; a receiving rank accepts one authenticated
 * connection, checks that the frame is the one the plan names (owner, round, length, CRC32C), stores
 * it (verified before COMPLETE) and ACKs; every other rank only checks its local copy. All ranks run
 * this concurrently; a rank that both sends and receives receives on a second named thread (a one-shot
 * agent, see {@link AgentThreads}), so no two ranks wait on each other in a cycle. Every step is
 * bounded by the timeout.
 */
public final class RollbackTransfer {
    private static final Logger LOG = LoggerFactory.getLogger(RollbackTransfer.class);

    private RollbackTransfer() {
    }

    /**
     * Runs this rank's part of the plan.
     *
     * @param plan      a recoverable plan (identical on every rank)
     * @param store     this rank's store
     * @param endpoint  this rank's data endpoint (for receiving)
     * @param addresses every rank's data endpoint address, indexed by rank (for sending)
     * @param timeout   bound on the whole transfer
     * @return the slot holding this rank's own image of the plan's round, verified
     * @throws ReplicationException if a transfer fails, times out, or a copy does not verify
     */
    public static ReplicaSlot execute(RollbackPlan plan, ReplicaStore store, DataEndpoint endpoint,
                                      InetSocketAddress[] addresses, Duration timeout) throws ReplicationException {
        return execute(plan, store, endpoint, addresses, timeout, new RecoverySteps(false));
    }

    /**
     * Runs this rank's part of the plan, recording the steps.
     *
     * @param plan      a recoverable plan (identical on every rank)
     * @param store     this rank's store
     * @param endpoint  this rank's data endpoint (for receiving)
     * @param addresses every rank's data endpoint address, indexed by rank (for sending)
     * @param timeout   bound on the whole transfer
     * @param steps     records the transfer and the verification; with {@code trustVerification} a copy
     *                  verified at the store's open (or on receipt) is not read again
     * @return the slot holding this rank's own image of the plan's round, verified
     * @throws ReplicationException if a transfer fails, times out, or a copy does not verify
     */
    public static ReplicaSlot execute(RollbackPlan plan, ReplicaStore store, DataEndpoint endpoint,
                                      InetSocketAddress[] addresses, Duration timeout, RecoverySteps steps)
            throws ReplicationException {
        long started = System.nanoTime();
        long verifiedBefore = steps.verifyNanos; // the senders' checks are verification, not transfer
        int rank = store.rank();
        long round = plan.round();
        long deadline = ChannelIo.deadline(timeout);
        store.discardNewerThan(round);
        RestoreAction mine = plan.action(rank);
        AtomicReference<Throwable> receiveError = new AtomicReference<>();
        long[] received = new long[1]; // written by the receive thread, read after its latch
        CountDownLatch receiveDone = new CountDownLatch(1);
        AgentRunner receiver = null;
        if (mine.kind() == RestoreAction.Kind.RECEIVE) {
            receiver = AgentThreads.start(new Agent() {
                @Override
                public String roleName() {
                    return "jckpt-rollback-receive-" + rank;
                }

                @Override
                public int doWork() {
                    try {
                        received[0] = receive(mine, round, store, endpoint, deadline);
                    } catch (Throwable t) {
                        receiveError.set(t);
                    } finally {
                        receiveDone.countDown();
                    }
                    throw new AgentTerminationException(); // one transfer, then done
                }
            });
        }
        try {
            for (int target : plan.sendsTo(rank)) {
                steps.bytesSent += send(rank, target, round, store, endpoint, addresses[target], deadline, steps);
            }
        } catch (IOException e) {
            throw e instanceof ReplicationException re ? re
                    : new ReplicationException("rank " + rank + ": rollback send failed: " + e.getMessage(), e);
        } finally {
            if (receiver != null) {
                awaitReceiver(receiver, receiveDone, deadline, receiveError, rank);
            }
        }
        Throwable t = receiveError.get();
        if (t != null) {
            throw t instanceof ReplicationException re ? re
                    : new ReplicationException("rank " + rank + ": rollback receive from rank " + mine.source() + " failed: " + t, t);
        }
        steps.bytesReceived += received[0];
        long verifyStart = System.nanoTime();
        steps.transferNanos += verifyStart - started - (steps.verifyNanos - verifiedBefore);
        ReplicaSlot slot = store.find(rank, round);
        boolean intact = slot != null && (steps.trustVerification ? slot.verifyUnlessVerified() : slot.verify());
        steps.verifyNanos += System.nanoTime() - verifyStart;
        if (!intact || slot.length() != mine.length() || slot.crc32c() != mine.crc32c()) {
            throw new ReplicationException("rank " + rank + ": no verified local copy of round " + round
                    + " after the rollback transfer (" + slot + ")");
        }
        return slot;
    }

    /**
     * Waits for the receive, bounded by the deadline and a second; past it the receive fails as too
     * late and is interrupted (its channel is interruptible). Either way its thread is gone (bounded)
     * when this returns: the receiver writes into the store's mapping, and must be gone before anyone
     * may close (unmap) the store.
     */
    private static void awaitReceiver(AgentRunner receiver, CountDownLatch done, long deadline,
                                      AtomicReference<Throwable> receiveError, int rank) {
        boolean finished;
        try {
            finished = done.await(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 1000), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            receiveError.compareAndSet(null, new ReplicationException("rank " + rank
                    + ": rollback receive did not finish in time"));
            Thread thread = receiver.thread();
            if (thread != null) {
                thread.interrupt();
            }
        }
        AgentThreads.close(receiver, 5_000);
    }

    private static long send(int rank, int target, long round, ReplicaStore store, DataEndpoint endpoint,
                             InetSocketAddress to, long deadline, RecoverySteps steps) throws IOException {
        ReplicaSlot slot = store.find(target, round);
        long verifyStart = System.nanoTime();
        boolean intact = slot != null && (steps.trustVerification ? slot.verifyUnlessVerified() : slot.verify());
        steps.verifyNanos += System.nanoTime() - verifyStart;
        if (!intact) {
            throw new ReplicationException("rank " + rank + " was to send rank " + target + "'s round " + round
                    + " but no longer holds an intact copy");
        }
        String what = "rank " + rank + " sending rank " + target + "'s round " + round;
        try (SocketChannel ch = endpoint.connectTransfer(target, to, deadline)) {
            ByteBuffer header = encode(allocateHeader(), TYPE_DATA, target, 0, round, slot.length(), slot.crc32c());
            ChannelIo.writeFully(ch, header, deadline, what);
            for (long at = 0; at < slot.length(); ) { // in mapping-window views: images may exceed 2 GiB
                ByteBuffer part = slot.region(at, slot.length() - at);
                at += part.remaining();
                ChannelIo.writeFully(ch, part, deadline, what);
            }
            ByteBuffer ack = allocateHeader();
            ChannelIo.readFully(ch, ack, deadline, what + ": awaiting the ack");
            if (ack.getInt(MAGIC_OFFSET) != MAGIC || ack.getInt(TYPE_OFFSET) != TYPE_ACK || ack.getInt(OWNER_OFFSET) != target
                    || ack.getLong(ROUND_OFFSET) != round) {
                throw new ReplicationException(what + ": bad ack");
            }
        }
        LOG.debug("rank {} sent rank {}'s round {} ({} bytes)", rank, target, round, slot.length());
        return slot.length();
    }

    private static long receive(RestoreAction mine, long round, ReplicaStore store, DataEndpoint endpoint, long deadline)
            throws IOException {
        int rank = store.rank();
        for (;;) {
            DataEndpoint.Accepted a = endpoint.acceptTransfer(deadline);
            try (SocketChannel ch = a.channel()) {
                if (a.peer() != mine.source()) {
                    LOG.warn("rank {}: rollback connection from rank {}, expected rank {}; ignored", rank, a.peer(), mine.source());
                    continue;
                }
                String what = "rank " + rank + " receiving its round " + round + " from rank " + mine.source();
                ByteBuffer header = allocateHeader();
                ChannelIo.readFully(ch, header, deadline, what);
                if (header.getInt(MAGIC_OFFSET) != MAGIC || header.getInt(TYPE_OFFSET) != TYPE_DATA
                        || header.getInt(OWNER_OFFSET) != rank || header.getLong(ROUND_OFFSET) != round
                        || header.getLong(LENGTH_OFFSET) != mine.length() || header.getInt(CRC_OFFSET) != mine.crc32c()) {
                    throw new ReplicationException(what + ": the frame does not match the plan");
                }
                ReplicaWrite w = store.beginWrite(rank, round, mine.length());
                try {
                    CRC32C crc = new CRC32C();
                    for (long at = 0; at < w.length(); ) { // 1 MiB at a time, CRC32C while in cache
                        ByteBuffer part = w.region(at, Math.min(1 << 20, w.length() - at));
                        at += part.remaining();
                        ChannelIo.readFully(ch, part, deadline, what);
                        crc.update(part.flip());
                    }
                    w.commitComputed((int) crc.getValue(), mine.crc32c());
                } finally {
                    w.abort(); // no-op after a commit
                }
                ChannelIo.writeFully(ch, encode(allocateHeader(), TYPE_ACK, rank, 0, round, 0, 0), deadline, what);
                return mine.length();
            }
        }
    }
}
