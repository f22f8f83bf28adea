package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import io.jckpt.spi.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * targets (nearest first), then the {@link Refill refills} it is the source of, and waits for each
 * ACK; a receiving rank accepts one authenticated connection per copy it expects (its own data, the
 * copies of its predecessors it lacks), checks that the frame is one the plan names (owner, round,
 * length, CRC32C, from the planned sender), stores it (its CRC32C verified before COMPLETE, then its MAC
 * with the job's key: a copy refused is discarded and fails the transfer, before anything reads it) and
 * ACKs; every rank checks its local copy. All ranks run this concurrently; a rank that both sends and receives
 * receives on a second named thread (a one-shot agent, see {@link AgentThreads}), so no two ranks
 * wait on each other in a cycle. Every step is bounded by the timeout. When it returns on every rank,
 * round R is held by every rank and its m successors again.
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
        List<Refill> refills = plan.refills(store.config().replicas());
        List<Incoming> incoming = new ArrayList<>();
        if (mine.kind() == RestoreAction.Kind.RECEIVE) {
            incoming.add(new Incoming(rank, mine.source(), mine.length(), mine.crc32c()));
        }
        for (Refill f : refills) {
            if (f.holder() == rank) {
                incoming.add(new Incoming(f.owner(), f.source(), f.length(), f.crc32c()));
            }
        }
        AtomicReference<Throwable> receiveError = new AtomicReference<>();
        long[] received = new long[1]; // written by the receive thread, read after its latch
        CountDownLatch receiveDone = new CountDownLatch(1);
        AgentRunner receiver = null;
        if (!incoming.isEmpty()) {
            receiver = AgentThreads.start(new Agent() {
                @Override
                public String roleName() {
                    return "jckpt-rollback-receive-" + rank;
                }

                @Override
                public int doWork() {
                    try {
                        received[0] = receive(incoming, round, store, endpoint, deadline);
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
                steps.bytesSent += send(rank, target, target, round, store, endpoint, addresses[target], deadline, steps);
            }
            for (Refill f : refills) {
                if (f.source() == rank) {
                    steps.bytesSent += send(rank, f.owner(), f.holder(), round, store, endpoint, addresses[f.holder()],
                            deadline, steps);
                }
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
                    : new ReplicationException("rank " + rank + ": rollback receive of " + incoming + " failed: " + t, t);
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

    /** Sends this rank's copy of {@code owner}'s round to {@code target} and waits for its ACK. */
    private static long send(int rank, int owner, int target, long round, ReplicaStore store, DataEndpoint endpoint,
                             InetSocketAddress to, long deadline, RecoverySteps steps) throws IOException {
        ReplicaSlot slot = store.find(owner, round);
        long verifyStart = System.nanoTime();
        boolean intact = slot != null && (steps.trustVerification ? slot.verifyUnlessVerified() : slot.verify());
        steps.verifyNanos += System.nanoTime() - verifyStart;
        if (!intact) {
            throw new ReplicationException("rank " + rank + " was to send rank " + owner + "'s round " + round
                    + " to rank " + target + " but no longer holds an intact copy");
        }
        String what = "rank " + rank + " sending rank " + owner + "'s round " + round + " to rank " + target;
        try (SocketChannel ch = endpoint.connectTransfer(target, to, deadline)) {
            ByteBuffer header = encode(allocateHeader(), TYPE_DATA, owner, 0, round, slot.length(), slot.crc32c());
            ChannelIo.writeFully(ch, header, deadline, endpoint.fence(), what);
            for (long at = 0; at < slot.length(); ) { // in mapping-window views: images may exceed 2 GiB
                ByteBuffer part = slot.region(at, slot.length() - at);
                at += part.remaining();
                ChannelIo.writeFully(ch, part, deadline, endpoint.fence(), what);
            }
            ByteBuffer ack = allocateHeader();
            ChannelIo.readFully(ch, ack, deadline, endpoint.fence(), what + ": awaiting the ack");
            if (ack.getInt(MAGIC_OFFSET) != MAGIC || ack.getInt(TYPE_OFFSET) != TYPE_ACK || ack.getInt(OWNER_OFFSET) != owner
                    || ack.getLong(ROUND_OFFSET) != round) {
                throw new ReplicationException(what + ": bad ack");
            }
        }
        LOG.debug("rank {} sent rank {}'s round {} to rank {} ({} bytes)", rank, owner, round, target, slot.length());
        return slot.length();
    }

    /** A copy this rank expects: {@code owner}'s data from {@code source}. */
    private record Incoming(int owner, int source, long length, int crc32c) {
        @Override
        public String toString() {
            return "rank " + owner + "'s data from rank " + source;
        }
    }

    /** Receives every expected copy, in the order the senders connect; returns the bytes received. */
    private static long receive(List<Incoming> expected, long round, ReplicaStore store, DataEndpoint endpoint,
                                long deadline) throws IOException {
        int rank = store.rank();
        List<Incoming> left = new ArrayList<>(expected);
        long bytes = 0;
        while (!left.isEmpty()) {
            DataEndpoint.Accepted a = endpoint.acceptTransfer(deadline);
            try (SocketChannel ch = a.channel()) {
                String what = "rank " + rank + " receiving round " + round + " from rank " + a.peer();
                ByteBuffer header = allocateHeader();
                ChannelIo.readFully(ch, header, deadline, endpoint.fence(), what);
                int owner = header.getInt(OWNER_OFFSET);
                Incoming in = null;
                for (Incoming e : left) {
                    if (e.source() == a.peer() && e.owner() == owner) {
                        in = e;
                    }
                }
                if (in == null) {
                    LOG.warn("rank {}: rollback connection from rank {} with rank {}'s data, expected {}; ignored", rank,
                            a.peer(), owner, left);
                    continue;
                }
                what = "rank " + rank + " receiving " + in + " at round " + round;
                if (header.getInt(MAGIC_OFFSET) != MAGIC || header.getInt(TYPE_OFFSET) != TYPE_DATA
                        || header.getLong(ROUND_OFFSET) != round || header.getLong(LENGTH_OFFSET) != in.length()
                        || header.getInt(CRC_OFFSET) != in.crc32c()) {
                    throw new ReplicationException(what + ": the frame does not match the plan");
                }
                ReplicaSlot held = store.find(owner, round);
                if (held != null && held.length() == in.length() && held.crc32c() == in.crc32c()) {
                    // planned from a status that showed a newer copy only (discarded since): this one is intact
                    drain(ch, in.length(), deadline, endpoint.fence(), what);
                } else {
                    ReplicaWrite w = store.beginWrite(owner, round, in.length());
                    try {
                        CRC32C crc = new CRC32C();
                        for (long at = 0; at < w.length(); ) { // 1 MiB at a time, CRC32C while in cache
                            ByteBuffer part = w.region(at, Math.min(1 << 20, w.length() - at));
                            at += part.remaining();
                            ChannelIo.readFully(ch, part, deadline, endpoint.fence(), what);
                            crc.update(part.flip());
                        }
                        w.commitComputed((int) crc.getValue(), in.crc32c());
                    } finally {
                        w.abort(); // no-op after a commit
                    }
                    ReplicaSlot got = w.slot();
                    if (got.authenticates() && !got.verify()) {
                        // its MAC (with the job's key) refuses it: altered on the way, or not this job's
                        String why = got.problem();
                        got.discard();
                        throw new ReplicationException(what + ": the copy received (" + got.path().getFileName()
                                + ", rank " + owner + "'s round " + round + ") is " + why);
                    }
                    bytes += in.length();
                }
                ChannelIo.writeFully(ch, encode(allocateHeader(), TYPE_ACK, owner, 0, round, 0, 0), deadline,
                        endpoint.fence(), what);
                left.remove(in);
            }
        }
        return bytes;
    }

    /** Reads and drops {@code length} bytes (a copy this rank already holds intact). */
    private static void drain(SocketChannel ch, long length, long deadline, WaitFence fence, String what)
            throws IOException {
        ByteBuffer sink = ByteBuffer.allocate((int) Math.min(length, 64 << 10));
        for (long at = 0; at < length; ) {
            sink.clear().limit((int) Math.min(sink.capacity(), length - at));
            ChannelIo.readFully(ch, sink, deadline, fence, what);
            at += sink.limit();
        }
    }
}
