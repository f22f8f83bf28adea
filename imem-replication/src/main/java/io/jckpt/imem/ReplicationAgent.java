package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import io.jckpt.spi.AgentThreads;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring replication of one rank: an agent ({@link AgentThreads}) on its own named thread
 * ({@code jckpt-ring-replication-RANK}) running a duty cycle over the two non-blocking
 * {@link RingLinks} (no spinning: it sleeps in {@code select} with a bound, woken by new work).
 *
 * <p>Protocol: rank i sends each new own round to (i+1)%n as DATA hop 1; a rank receiving DATA hop h
 * &lt; m forwards it as hop h+1 while it arrives (cut-through: each chunk goes on as soon as it is
 * stored, so m hops cost about one transfer, not m), and verifies its own copy's CRC32C chunk by
 * chunk, marking the slot COMPLETE only when the whole image matches the owner's CRC32C. The next
 * rank verifies its copy against the owner's CRC32C too, so a chunk damaged anywhere is caught by
 * every rank that stored it; a forwarder that finds a mismatch fails its agent, which closes its
 * connections, so the next rank's half copy is discarded as after any broken transfer. ACKs flow
 * back: the hop-m holder acknowledges at once, every other holder when its next has acknowledged, so
 * an ACK hop 1 reaching the owner means all m copies are stored: the owner's round moves from
 * pending to completed. Each rank's newest completed round travels forward around the ring in
 * WATERMARK frames; the minimum over all ranks is the <em>global completed round</em> G.
 *
 * <p>Overlapping rounds: {@link #beginRound} never overwrites a version whose round is not older
 * than G (it waits, bounded, and counts the wait). Hence round G is always complete on every rank:
 * any failure of up to m ranks can roll back at least to G, even in the middle of a round.
 *
 * <p>Failures: a peer closing its connection, an I/O error, a CRC mismatch, or no progress for
 * {@code ioTimeout} stops the agent with a {@link ReplicationException} reported by every later call;
 * a half-received copy is discarded (its slot EMPTY), every complete version stays intact.
 * Close the agent before the store.
 *
 * <p>Structure: this class is the caller API and the duty cycle; the thread-confined parts it drives
 * are {@link OutboundFrames} (frames to the next rank), {@link InboundCopy} (frames from the previous
 * rank: the copy state machine, cut-through forwards), {@link AckQueue} (ACKs back, in reused
 * buffers) and {@link RingWatermarks} (the per-owner progress, published to callers under its lock).
 * Headers are read and written with {@link ReplicationFrameFlyweight}.
 *
 * <p><b>Size</b> (past 600 lines): about a third is the Javadoc of the caller API; the duty cycle
 * (select, dispatch, stall clocks, ACKs read and passed back, goodbye) stays here because it owns the
 * selector and the failure path that every part reports through.
 */
public final class ReplicationAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationAgent.class);
    private static final long POLL_MILLIS = 100;
    /**
     * Inbound copies are read at most this much per read: the CRC32C runs over bytes still in the
     * cache, and a forwarded copy moves on to the next rank in steps of this size.
     */
    static final int READ_CHUNK = 256 << 10;
    /**
     * Own images larger than this are sent with their CRC32C computed one chunk ahead of the send
     * and carried by a DATA_END frame; smaller ones get it in one pass first (in the header). At
     * 4 MiB the single pass measured as fast or faster (0.6 ms of CRC32C against the per-chunk
     * steps); the overlap pays off only when the CRC32C pass is long.
     */
    static final long CRC_FOLLOWS_MIN = 8L << 20;
    /** Writes per duty cycle on the outbound connection before the agent looks at its inbound side again. */
    static final int WRITES_PER_CYCLE = 16;
    /** Frames up to this payload size go out as one gathering write (header and payload in one segment). */
    static final int GATHER_MAX = 64 << 10;

    private final ReplicaStore store;
    private final RingLinks links;
    private final int rank;
    private final int n;
    private final long ioTimeoutNanos;
    private final ReplicationCounters counters = new ReplicationCounters();
    private final Selector selector;
    private final SelectionKey outKey;
    private final SelectionKey inKey;
    private final AgentRunner runner;
    private final ConcurrentLinkedQueue<Submission> submitted = new ConcurrentLinkedQueue<>();

    private final RingWatermarks watermarks;
    // shared with callers, guarded by lock (the watermarks' lock)
    private final ReentrantLock lock;
    private final Condition changed;
    private long lastBegunRound;
    private volatile ReplicationException failure;
    private volatile boolean running = true;

    // agent thread only
    private final OutboundFrames outbound;
    private final InboundCopy inbound;
    private final AckQueue acks = new AckQueue();
    private final ArrayDeque<long[]> ownSubmitTimes = new ArrayDeque<>();
    private final ByteBuffer ackIn = allocateHeader();
    private final ReplicationFrameFlyweight ackFrame = new ReplicationFrameFlyweight().wrap(ackIn, 0);
    private final WatermarkFlyweight watermarkOut = new WatermarkFlyweight();

    private ReplicationAgent(ReplicaStore store, RingLinks links, Duration ioTimeout, boolean zeroCopy, long initialRound)
            throws IOException {
        this.store = store;
        this.links = links;
        this.rank = links.rank();
        this.n = links.ranks();
        int m = store.config().replicas();
        if (store.rank() != rank || store.config().ranks() != n) {
            throw new IllegalArgumentException("store is for rank " + store.rank() + " of " + store.config().ranks()
                    + ", links for rank " + rank + " of " + n);
        }
        if (!store.config().ring().equals(links.ring())) {
            throw new IllegalArgumentException("rank " + rank + ": store made for the ring " + store.config().ring().text()
                    + ", links on the ring " + links.ring().text());
        }
        if (m < 1) {
            throw new IllegalArgumentException("replication needs m >= 1 (m = 0 keeps local copies only)");
        }
        this.ioTimeoutNanos = ioTimeout.toNanos();
        this.lastBegunRound = initialRound;
        this.watermarks = new RingWatermarks(rank, n, initialRound, counters);
        this.lock = watermarks.lock;
        this.changed = watermarks.changed;
        this.outbound = new OutboundFrames(store, links.toNext(), rank, zeroCopy, counters);
        this.inbound = new InboundCopy(store, links, m, counters, outbound, acks, watermarks);
        this.selector = Selector.open();
        links.toNext().configureBlocking(false);
        links.fromPrev().configureBlocking(false);
        this.outKey = links.toNext().register(selector, SelectionKey.OP_READ);
        this.inKey = links.fromPrev().register(selector, SelectionKey.OP_READ);
        // the bounded select is the agent's idle: it wakes on new work, so no park after a cycle
        this.runner = AgentThreads.start(new DutyCycle(), NoOpIdleStrategy.INSTANCE);
    }

    /**
     * Starts the agent of one rank, sending images zero-copy from the store's files
     * ({@code FileChannel.transferTo}), the faster path measured.
     *
     * @param store        this rank's store
     * @param links        this rank's authenticated ring connections (the agent owns and closes them)
     * @param ioTimeout    no progress on a connection with work pending for this long is a failure
     * @param initialRound the round every rank restored (after a rollback), or -1 for a fresh job
     * @return the running agent
     * @throws IOException if the selector cannot be opened
     */
    public static ReplicationAgent start(ReplicaStore store, RingLinks links, Duration ioTimeout, long initialRound)
            throws IOException {
        return start(store, links, ioTimeout, true, initialRound);
    }

    /**
     * Starts the agent of one rank.
     *
     * @param store        this rank's store
     * @param links        this rank's authenticated ring connections (the agent owns and closes them)
     * @param ioTimeout    no progress on a connection with work pending for this long is a failure
     * @param zeroCopy     send images with {@code FileChannel.transferTo} instead of from the mapping
     * @param initialRound the round every rank restored (after a rollback), or -1 for a fresh job
     * @return the running agent
     * @throws IOException if the selector cannot be opened
     */
    public static ReplicationAgent start(ReplicaStore store, RingLinks links, Duration ioTimeout, boolean zeroCopy,
                                         long initialRound) throws IOException {
        return new ReplicationAgent(store, links, ioTimeout, zeroCopy, initialRound);
    }

    /**
     * @return the CPU time this agent's thread has used so far (ns; what it took from the program's cores,
     *         for the interval policy's cost), or -1 when the JVM does not measure thread CPU time
     */
    public long cpuTimeNanos() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Thread thread = runner.thread(); // null before its first cycle
        return thread != null && mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled()
                ? mx.getThreadCpuTime(thread.getId()) : -1;
    }

    /** @return the counters */
    public ReplicationCounters counters() {
        return counters;
    }

    /** @return the newest own round acknowledged by all m holders */
    public long completedRound() {
        return watermarks.completedRound();
    }

    /** @return G: the newest round known complete (all m+1 copies) for every rank */
    public long globalCompletedRound() {
        return watermarks.globalCompletedRound();
    }

    /** @return the failure that stopped the agent, or null */
    public ReplicationException failure() {
        return failure;
    }

    private void checkFailure() throws ReplicationException {
        ReplicationException f = failure;
        if (f != null) {
            throw f.again();
        }
        if (!running) {
            throw new ReplicationException("replication agent of rank " + rank + " is closed");
        }
    }

    /**
     * Begins this rank's local copy of a new round: the here() path. Waits (bounded, counted) while
     * the version it would overwrite is not older than the global completed round G.
     *
     * @param round   the new round, greater than every earlier one
     * @param length  the image length
     * @param timeout bound on the wait
     * @return the write to fill and pass to {@link #commitRound}
     * @throws ReplicationException if the agent failed or the wait expired
     * @throws InterruptedException if interrupted while waiting
     */
    public ReplicaWrite beginRound(long round, long length, Duration timeout) throws ReplicationException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        boolean waited = false;
        lock.lock();
        try {
            if (round <= lastBegunRound) {
                throw new IllegalArgumentException("round " + round + " is not newer than round " + lastBegunRound);
            }
            for (;;) {
                checkFailure();
                ReplicaSlot victim = store.nextWritable(rank);
                if (victim != null && (!victim.completeAndIntact() || victim.round() < watermarks.globalCompletedRound())) {
                    break;
                }
                if (!waited) {
                    waited = true;
                    counters.overlapWaits.incrementAndGet();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    int slowest = watermarks.slowestRank();
                    throw new ReplicationException("rank " + rank + ", round " + round + ": round "
                            + (victim == null ? lastBegunRound : victim.round()) + " is not yet replicated on every rank after " + timeout.toMillis() + " ms (global completed round "
                            + watermarks.globalCompletedRound() + ", slowest rank " + slowest + " at round "
                            + watermarks.completed(slowest)
                            + "); its version cannot be overwritten yet");
                }
                changed.awaitNanos(left);
            }
            lastBegunRound = round;
        } finally {
            lock.unlock();
            if (waited) {
                counters.overlapWaitNanos.addAndGet(System.nanoTime() - start);
            }
        }
        return store.beginWrite(rank, round, length);
    }

    /**
     * Completes the local copy (CRC32C, COMPLETE) and hands the round to the agent; returns at once.
     *
     * @param write the write from {@link #beginRound}
     * @return the image CRC32C
     * @throws ReplicationException if the agent failed (the local copy is committed anyway)
     */
    public int commitRound(ReplicaWrite write) throws ReplicationException {
        int crc = write.commit();
        submit(write.round());
        return crc;
    }

    /**
     * Hands the filled local copy to the agent without computing its CRC32C on the caller's thread:
     * the agent computes it, marks the copy COMPLETE, then replicates it. here() then costs only the
     * copy. Until the agent has marked it COMPLETE, a crash of this process loses this round's local
     * copy (the previous version stays intact, and the plan falls back to it).
     *
     * @param write the write from {@link #beginRound}, filled; owned by the agent from now on
     * @throws ReplicationException if the agent failed
     */
    public void commitRoundInBackground(ReplicaWrite write) throws ReplicationException {
        if (write.owner() != rank) {
            throw new IllegalArgumentException("not this rank's own copy: " + write.owner());
        }
        checkFailure();
        counters.roundsSubmitted.incrementAndGet();
        submitted.add(new Submission(write.round(), System.nanoTime(), write, 0));
        selector.wakeup();
    }

    /** Hands an own round whose local copy is COMPLETE to the agent. */
    void submit(long round) throws ReplicationException {
        counters.roundsSubmitted.incrementAndGet();
        checkFailure();
        submitted.add(new Submission(round, System.nanoTime(), null, 0));
        selector.wakeup();
    }

    /**
     * Waits until an own round is acknowledged by all m holders.
     *
     * @param round   the round
     * @param timeout the bound
     * @return true if completed, false on timeout
     * @throws ReplicationException if the agent failed
     * @throws InterruptedException if interrupted
     */
    public boolean awaitCompleted(long round, Duration timeout) throws ReplicationException, InterruptedException {
        return awaitState(() -> watermarks.completedRound() >= round, timeout);
    }

    /**
     * Waits until the global completed round reaches {@code round}.
     *
     * @param round   the round
     * @param timeout the bound
     * @return true if reached, false on timeout
     * @throws ReplicationException if the agent failed
     * @throws InterruptedException if interrupted
     */
    public boolean awaitGloballyCompleted(long round, Duration timeout) throws ReplicationException, InterruptedException {
        return awaitState(() -> watermarks.globalCompletedRound() >= round, timeout);
    }

    /**
     * Tells the ring that this rank skipped an own round because its image (of {@code need} bytes)
     * outgrew its slot: the round exists nowhere for this rank. The fact travels around the ring
     * with the watermarks, so every rank learns it from {@link #awaitSettled} with no exchange of
     * its own. Only the first skip in this agent's life is carried (the policy switches the store
     * layout at the next round, which starts a new agent); returns at once.
     *
     * @param round the skipped round, greater than every round begun before
     * @param need  the slot capacity the image needs, greater than 0
     * @throws ReplicationException if the agent failed
     */
    public void skipRound(long round, long need) throws ReplicationException {
        if (need <= 0) {
            throw new IllegalArgumentException("need must be > 0, got " + need);
        }
        lock.lock();
        try {
            if (round <= lastBegunRound) {
                throw new IllegalArgumentException("round " + round + " is not newer than round " + lastBegunRound);
            }
            lastBegunRound = round;
        } finally {
            lock.unlock();
        }
        checkFailure();
        submitted.add(new Submission(round, System.nanoTime(), null, need));
        selector.wakeup();
    }

    /**
     * Waits (bounded) until round {@code round} is settled on every rank: replicated at all its m
     * holders, or skipped by its owner ({@link #skipRound}). Every rank that waits for the same
     * round gets the same answer: an owner's skip is sent around the ring before any later
     * completion of that owner, and it is final for this agent.
     *
     * @param round   the round
     * @param timeout the bound
     * @return per rank, the capacity its image needs when it skipped this round or an earlier one in
     *         this agent's life, else 0; null if not settled in time
     * @throws ReplicationException if the agent failed
     * @throws InterruptedException if interrupted
     */
    public long[] awaitSettled(long round, Duration timeout) throws ReplicationException, InterruptedException {
        if (!awaitState(() -> watermarks.settled(round), timeout)) {
            return null;
        }
        return watermarks.needs(round);
    }

    /** No step known of a rank at the round asked about ({@link #stepsAt}). */
    public static final long UNKNOWN_STEP = RingWatermarks.UNKNOWN_STEP;

    /**
     * Attaches the program's step to this rank's own round {@code round}; call it before the round is
     * handed over ({@link #commitRoundInBackground}) or skipped ({@link #skipRound}), so that every
     * watermark saying the round is complete or skipped carries it (with the step of the round before).
     * The value is opaque to the agent; no frame of its own.
     *
     * @param round the own round, newer than the previous one offered
     * @param step  the step
     */
    public void offerStep(long round, long step) {
        watermarks.offerStep(round, step);
    }

    /**
     * Every rank's step at round {@code round}, as the watermarks carry it: with two versions kept,
     * after {@link #awaitSettled} of that round every rank reads the same values (no rank can be past
     * round + 1 then, and each watermark carries its owner's steps of its two newest rounds).
     *
     * @param round a round settled on every rank
     * @return per rank, its step at that round, {@link #UNKNOWN_STEP} where none was offered in this agent's life
     */
    public long[] stepsAt(long round) {
        return watermarks.stepsAt(round);
    }

    /** No decision of the decider for the round asked about. */
    public static final long NO_DECISION = Long.MIN_VALUE;

    /**
     * The decider (rank 0) attaches its decision taken at round {@code round} to its watermarks; call it
     * before the round is handed over ({@link #commitRoundInBackground}) or skipped ({@link #skipRound}),
     * so that every watermark saying this rank's round {@code round} is complete or skipped carries it.
     * The value is opaque to the agent. Keeps the two newest decisions.
     *
     * @param round the round the decision was taken at, greater than the previous one offered
     * @param value the decision
     */
    public void offerDecision(long round, long value) {
        watermarks.offerDecision(round, value);
        // no frame of its own: it travels with the next watermark (the round's completion or skip)
    }

    /**
     * Waits (bounded) until round {@code round} is settled on every rank ({@link #awaitSettled}), then
     * returns the decider's decision taken at that round. With two versions kept every rank asking at
     * its here() of round + 1 gets the same answer: the decider's watermark saying its round is settled
     * carries that decision, and the decider cannot take a decision two rounds newer before this rank's
     * next round is settled everywhere.
     *
     * @param round   the round
     * @param timeout the bound
     * @return the value offered at that round, or {@link #NO_DECISION} if none was
     * @throws ReplicationException if the agent failed or the round did not settle in time
     * @throws InterruptedException if interrupted
     */
    public long awaitDecision(long round, Duration timeout) throws ReplicationException, InterruptedException {
        if (awaitSettled(round, timeout) == null) {
            throw new ReplicationException("rank " + rank + ": round " + round + " is not settled on every rank after "
                    + timeout.toMillis() + " ms (global completed round " + watermarks.globalCompletedRound() + ")");
        }
        return watermarks.decisionAt(round);
    }

    private boolean awaitState(java.util.function.BooleanSupplier done, Duration timeout)
            throws ReplicationException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            for (;;) {
                if (done.getAsBoolean()) {
                    return true;
                }
                checkFailure();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- agent thread

    /** The agent: its cycle until {@link #close()} or a failure, then the goodbye and the connections closed. */
    private final class DutyCycle implements Agent {
        @Override
        public String roleName() {
            return "jckpt-ring-replication-" + rank;
        }

        @Override
        public void onStart() {
            long start = System.nanoTime();
            outbound.touch(start);
            inbound.touch(start);
        }

        @Override
        public int doWork() {
            if (!running) {
                throw new AgentTerminationException();
            }
            counters.dutyCycles.incrementAndGet();
            try {
                return ReplicationAgent.this.doWork();
            } catch (IOException | RuntimeException e) {
                fail(e);
                throw new AgentTerminationException();
            }
        }

        @Override
        public void onClose() {
            inbound.abort();
            for (Submission s; (s = submitted.poll()) != null; ) {
                if (s.write() != null) {
                    s.write().commit(); // the local copy is complete in memory: keep it
                }
            }
            outbound.commitOwnCopies();
            if (failure == null || failure.getMessage().endsWith("deliberately")) {
                sayGoodbye(); // a deliberate end travels around the ring quietly
            }
            links.close();
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("selector close", e);
            }
            watermarks.signal();
        }
    }

    /** One duty cycle; returns the work done: own rounds taken, connections that were ready. */
    private int doWork() throws IOException {
        long now0 = System.nanoTime();
        int work = 0;
        if (outbound.idle()) {
            outbound.touch(now0); // idle: nothing can stall
        }
        if (inbound.idle()) {
            inbound.touch(now0);
        }
        for (Submission s; (s = submitted.poll()) != null; ) {
            work++;
            if (s.skipNeed() > 0) {
                watermarks.skipOwn(s.round(), s.skipNeed());
                continue;
            }
            ownSubmitTimes.add(new long[] {s.round(), s.at()});
            ReplicaWrite w = s.write();
            if (w != null && w.slot().length() > CRC_FOLLOWS_MIN) {
                // the CRC32C runs chunk by chunk just ahead of the send, the copy is COMPLETE at the end
                outbound.enqueueOwnWithCrcFollowing(s.round(), w);
                continue;
            }
            if (w != null) {
                w.commit(); // a small image: CRC32C off the caller's thread, then COMPLETE
            }
            outbound.enqueueData(rank, s.round(), 1);
        }
        if (watermarks.takeDirty()) {
            ByteBuffer payload = ByteBuffer.allocate(WatermarkFlyweight.length(n)).order(ByteOrder.LITTLE_ENDIAN);
            watermarks.write(watermarkOut.wrap(payload, 0, n));
            outbound.enqueueWatermark(payload);
        }
        // write what can go now: the sockets are nearly always writable, so a frame (or ACK) queued by
        // the last duty cycle leaves without a select round and an interest change first; only what
        // the socket does not take waits for OP_WRITE
        flushNow();
        boolean outWritable = outbound.canWrite();
        if (outbound.midFrame() && !outWritable) {
            outbound.touch(now0); // a forward waiting for its bytes to arrive: the input's clock runs
        }
        outKey.interestOps(SelectionKey.OP_READ | (outWritable ? SelectionKey.OP_WRITE : 0));
        inKey.interestOps(SelectionKey.OP_READ | (acks.isEmpty() ? 0 : SelectionKey.OP_WRITE));
        work += selector.select(POLL_MILLIS);
        if (!running) {
            return work;
        }
        for (SelectionKey k : selector.selectedKeys()) {
            if (!k.isValid()) {
                continue;
            }
            try {
                if (k == outKey) {
                    if (k.isReadable()) {
                        readAcks();
                    }
                    if (k.isValid() && k.isWritable()) {
                        outbound.write();
                    }
                } else {
                    if (k.isReadable()) {
                        inbound.read();
                    }
                    if (k.isValid() && k.isWritable()) {
                        acks.writeTo(links.fromPrev());
                    }
                }
            } catch (ReplicationException e) {
                throw e;
            } catch (IOException e) {
                int peer = k == outKey ? links.next() : links.previous();
                throw ReplicationException.connectionLost(rank, peer, "failed (" + e.getMessage() + ")"
                        + (inbound.midCopy() ? " in the middle of a copy" : ""), e);
            }
        }
        selector.selectedKeys().clear();
        long now = System.nanoTime();
        if (!outbound.idle() && now - outbound.lastProgress() > ioTimeoutNanos) {
            throw new ReplicationException("rank " + rank + ": no progress sending to rank " + links.next() + " for "
                    + TimeUnit.NANOSECONDS.toMillis(now - outbound.lastProgress()) + " ms (peer stalled or dead)");
        }
        if (inbound.midFrame() && now - inbound.lastProgress() > ioTimeoutNanos) {
            throw new ReplicationException("rank " + rank + ": no progress receiving from rank " + links.previous()
                    + " for " + TimeUnit.NANOSECONDS.toMillis(now - inbound.lastProgress()) + " ms (peer stalled or dead)");
        }
        return work;
    }

    private void flushNow() throws IOException {
        try {
            if (outbound.canWrite()) {
                outbound.write();
            }
        } catch (ReplicationException e) {
            throw e;
        } catch (IOException e) {
            throw ReplicationException.connectionLost(rank, links.next(), "failed (" + e.getMessage() + ")", e);
        }
        try {
            if (!acks.isEmpty()) {
                acks.writeTo(links.fromPrev());
            }
        } catch (ReplicationException e) {
            throw e;
        } catch (IOException e) {
            throw ReplicationException.connectionLost(rank, links.previous(), "failed (" + e.getMessage() + ")"
                    + (inbound.midCopy() ? " in the middle of a copy" : ""), e);
        }
    }

    private void readAcks() throws IOException {
        for (;;) {
            int r = links.toNext().read(ackIn);
            if (r < 0) {
                throw ReplicationException.connectionLost(rank, links.next(), "was closed", new EOFException());
            }
            if (ackIn.hasRemaining()) {
                return;
            }
            ackIn.flip();
            checkMagic(ackFrame, rank, links.next());
            if (ackFrame.type() == TYPE_GOODBYE) {
                throw goodbye(rank, links.next());
            }
            if (ackFrame.type() != TYPE_ACK) {
                throw new ReplicationException("rank " + rank + ": unexpected frame type " + ackFrame.type()
                        + " from rank " + links.next());
            }
            onAck(ackFrame.owner(), ackFrame.round(), ackFrame.hop());
            ackIn.clear();
        }
    }

    private void onAck(int owner, long round, int hop) throws ReplicationException {
        if (owner < 0 || owner >= n) {
            throw new ReplicationException("rank " + rank + ": ack for rank " + owner + " round " + round + " from rank "
                    + links.next() + " names no rank of the ring");
        }
        int myHop = links.ring().distance(owner, rank);
        if (hop != myHop + 1) {
            throw new ReplicationException("rank " + rank + ": ack for rank " + owner + " round " + round + " hop " + hop
                    + " from rank " + links.next() + " does not fit the ring");
        }
        if (owner != rank) {
            acks.add(owner, myHop, round);
            return;
        }
        while (!ownSubmitTimes.isEmpty() && ownSubmitTimes.peek()[0] <= round) {
            long[] t = ownSubmitTimes.poll();
            if (t[0] == round) {
                counters.lastRoundReplicationNanos.set(System.nanoTime() - t[1]);
            }
        }
        watermarks.ownRoundCompleted(round);
    }

    /** Best effort, only between frames: tells both neighbours that this rank leaves deliberately. */
    private void sayGoodbye() {
        try {
            ByteBuffer bye = allocateHeader();
            new ReplicationFrameFlyweight().wrap(bye, 0).frame(TYPE_GOODBYE).owner(rank).hop(0).round(0).length(0)
                    .crc(0).flags(0);
            if (!outbound.midFrame()) {
                links.toNext().write(bye);
            }
            if (!acks.midFrame()) {
                links.fromPrev().write(bye.clear());
            }
        } catch (IOException e) {
            LOG.debug("rank {}: goodbye not delivered", rank, e);
        }
    }

    /** @return the failure a GOODBYE from {@code from} reports on {@code rank} */
    static ReplicationException goodbye(int rank, int from) {
        return new ReplicationException("rank " + rank + ": rank " + from + " closed its end of the ring deliberately");
    }

    /** @throws ReplicationException if the header does not start with the magic */
    static void checkMagic(ReplicationFrameFlyweight header, int rank, int from) throws ReplicationException {
        if (!header.hasMagic()) {
            throw new ReplicationException("rank " + rank + ": garbled frame from rank " + from);
        }
    }

    private void fail(Exception e) {
        ReplicationException f = e instanceof ReplicationException re ? re
                : new ReplicationException("rank " + rank + ": replication failed: " + e, e);
        if (failure == null) {
            failure = f;
            if (f.getMessage().endsWith("deliberately")) {
                LOG.info("{}", f.getMessage());
            } else if (f.peerLost()) {
                // a routine failure of a peer: the launcher reports it, and every later call of this
                // agent throws it to the program (an error of its own is reported with it)
                LOG.debug("{}", f.getMessage());
            } else {
                LOG.warn("{}", f.getMessage());
            }
        }
        running = false;
    }

    /**
     * Simulates the death of this rank's process for tests: the connections are closed at once,
     * without a goodbye, as the kernel does when a process dies; then the thread is stopped.
     */
    void crash() {
        links.close();
        close();
    }

    /**
     * Stops the thread (bounded), discards a half-received copy, tells the neighbours it leaves
     * deliberately (between frames), closes the connections.
     */
    @Override
    public void close() {
        running = false;
        selector.wakeup();
        // never interrupted: its file channels (zero-copy sends from the store) would be closed
        AgentThreads.close(runner, TimeUnit.SECONDS.toMillis(10));
        links.close();
    }

    /** An own round handed to the agent; {@code write} is set when its CRC32C is still to be computed. */
    private record Submission(long round, long at, ReplicaWrite write, long skipNeed) {
    }
}
