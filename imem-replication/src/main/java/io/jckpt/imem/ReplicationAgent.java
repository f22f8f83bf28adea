package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring replication of one rank: one named background thread running a duty cycle over the two
 * non-blocking {@link RingLinks} (no spinning: it sleeps in {@code select} with a bound).
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
 * <p><b>Size</b> (past 600 lines): one duty-cycle thread owns the selector, both connections and every
 * frame in flight, so outbound frames, the inbound copy state machine and the watermarks share its
 * thread-confined state; splitting them along those seams (with flyweight frame encoders) is planned.
 */
public final class ReplicationAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationAgent.class);
    private static final long POLL_MILLIS = 100;
    /** No round skipped. */
    private static final long NONE = Long.MAX_VALUE;
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
    private final int m;
    private final long ioTimeoutNanos;
    private final boolean zeroCopy;
    private final ReplicationCounters counters = new ReplicationCounters();
    private final Selector selector;
    private final SelectionKey outKey;
    private final SelectionKey inKey;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Submission> submitted = new ConcurrentLinkedQueue<>();

    // shared with callers, guarded by lock
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long completedRound;
    private long lastBegunRound;
    private final long[] watermarkView;
    private final long[] skippedView;
    private final long[] needView;
    private volatile long globalCompletedRound;
    /**
     * The decider's (rank 0's) two newest decisions as they reached this rank, newest first: rounds
     * and values ({@link #offerDecision}); round -1 = none. Guarded by lock.
     */
    private final long[] decisions = {-1, 0, -1, 0};
    private volatile ReplicationException failure;
    private volatile boolean running = true;

    // agent thread only
    private final long[] watermark;
    /** Per owner: the first round it skipped in this agent's life (its image outgrew its slot), or NONE. */
    private final long[] skipped;
    /** Per owner: the slot capacity its skipped round needs (its image length), 0 when none skipped. */
    private final long[] need;
    private boolean watermarkDirty;
    private final ArrayDeque<long[]> ownSubmitTimes = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> outQueue = new ArrayDeque<>();
    private Outgoing sending;
    private final ArrayDeque<ByteBuffer> ackQueue = new ArrayDeque<>();
    private final ByteBuffer inHeader = allocateHeader();
    private ReplicaWrite inWrite;
    private final java.util.zip.CRC32C inCrc = new java.util.zip.CRC32C();
    private ByteBuffer inPayload;
    /** Image bytes of the copy being received stored so far (its payload comes in mapping-window views). */
    private long inReceived;
    /** The cut-through forward of the copy being received (hop &lt; m), or null. */
    private Outgoing inForward;
    /** The copy being received had FLAG_CRC_FOLLOWS: its payload is in, its DATA_END frame is next. */
    private boolean inAwaitingEnd;
    private boolean inTrails;
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final ByteBuffer ackIn = allocateHeader();
    private long lastOutProgress;
    private long lastInProgress;

    private ReplicationAgent(ReplicaStore store, RingLinks links, Duration ioTimeout, boolean zeroCopy, long initialRound)
            throws IOException {
        this.store = store;
        this.links = links;
        this.rank = links.rank();
        this.n = links.ranks();
        this.m = store.config().replicas();
        if (store.rank() != rank || store.config().ranks() != n) {
            throw new IllegalArgumentException("store is for rank " + store.rank() + " of " + store.config().ranks()
                    + ", links for rank " + rank + " of " + n);
        }
        if (m < 1) {
            throw new IllegalArgumentException("replication needs m >= 1 (m = 0 keeps local copies only)");
        }
        this.ioTimeoutNanos = ioTimeout.toNanos();
        this.zeroCopy = zeroCopy;
        this.completedRound = initialRound;
        this.lastBegunRound = initialRound;
        this.globalCompletedRound = initialRound;
        this.watermark = new long[n];
        Arrays.fill(watermark, initialRound);
        this.watermarkView = watermark.clone();
        this.skipped = new long[n];
        Arrays.fill(skipped, NONE);
        this.need = new long[n];
        this.skippedView = skipped.clone();
        this.needView = need.clone();
        this.selector = Selector.open();
        links.toNext().configureBlocking(false);
        links.fromPrev().configureBlocking(false);
        this.outKey = links.toNext().register(selector, SelectionKey.OP_READ);
        this.inKey = links.fromPrev().register(selector, SelectionKey.OP_READ);
        this.thread = new Thread(this::run, "jckpt-ring-replication-" + rank);
        this.thread.setDaemon(true);
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
        ReplicationAgent a = new ReplicationAgent(store, links, ioTimeout, zeroCopy, initialRound);
        a.thread.start();
        return a;
    }

    /**
     * @return the CPU time this agent's thread has used so far (ns; what it took from the program's cores,
     *         for the interval policy's cost), or -1 when the JVM does not measure thread CPU time
     */
    public long cpuTimeNanos() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        return mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled() ? mx.getThreadCpuTime(thread.getId()) : -1;
    }

    /** @return the counters */
    public ReplicationCounters counters() {
        return counters;
    }

    /** @return the newest own round acknowledged by all m holders */
    public long completedRound() {
        lock.lock();
        try {
            return completedRound;
        } finally {
            lock.unlock();
        }
    }

    /** @return G: the newest round known complete (all m+1 copies) for every rank */
    public long globalCompletedRound() {
        return globalCompletedRound;
    }

    /** @return the failure that stopped the agent, or null */
    public ReplicationException failure() {
        return failure;
    }

    private void checkFailure() throws ReplicationException {
        ReplicationException f = failure;
        if (f != null) {
            throw new ReplicationException(f.getMessage(), f);
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
                if (victim != null && (!victim.completeAndIntact() || victim.round() < globalCompletedRound)) {
                    break;
                }
                if (!waited) {
                    waited = true;
                    counters.overlapWaits.incrementAndGet();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    int slowest = 0;
                    for (int i = 1; i < n; i++) {
                        if (watermarkView[i] < watermarkView[slowest]) {
                            slowest = i;
                        }
                    }
                    throw new ReplicationException("rank " + rank + ", round " + round + ": round "
                            + (victim == null ? lastBegunRound : victim.round()) + " is not yet replicated on every rank after " + timeout.toMillis() + " ms (global completed round "
                            + globalCompletedRound + ", slowest rank " + slowest + " at round " + watermarkView[slowest]
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
        return awaitState(() -> completedRound >= round, timeout);
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
        return awaitState(() -> globalCompletedRound >= round, timeout);
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
        java.util.function.BooleanSupplier settled = () -> {
            for (int i = 0; i < n; i++) {
                if (watermarkView[i] < round && skippedView[i] > round) {
                    return false;
                }
            }
            return true;
        };
        if (!awaitState(settled, timeout)) {
            return null;
        }
        lock.lock();
        try {
            long[] needs = new long[n];
            for (int i = 0; i < n; i++) {
                needs[i] = skippedView[i] <= round ? needView[i] : 0;
            }
            return needs;
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            if (round > decisions[0]) {
                decisions[2] = decisions[0];
                decisions[3] = decisions[1];
                decisions[0] = round;
                decisions[1] = value;
            }
        } finally {
            lock.unlock();
        }
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
                    + timeout.toMillis() + " ms (global completed round " + globalCompletedRound + ")");
        }
        lock.lock();
        try {
            return decisions[0] == round ? decisions[1] : decisions[2] == round ? decisions[3] : NO_DECISION;
        } finally {
            lock.unlock();
        }
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

    private void run() {
        lastOutProgress = lastInProgress = System.nanoTime();
        try {
            while (running) {
                counters.dutyCycles.incrementAndGet();
                doWork();
            }
        } catch (IOException | RuntimeException e) {
            fail(e);
        } finally {
            if (inWrite != null) {
                inWrite.abort();
                inWrite = null;
            }
            for (Submission s; (s = submitted.poll()) != null; ) {
                if (s.write() != null) {
                    s.write().commit(); // the local copy is complete in memory: keep it
                }
            }
            if (sending != null) {
                sending.commitOwnCopy();
            }
            for (Outgoing o : outQueue) {
                o.commitOwnCopy();
            }
            if (failure == null || failure.getMessage().endsWith("deliberately")) {
                sayGoodbye(); // a deliberate end travels around the ring quietly
            }
            links.close();
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("selector close", e);
            }
            signal();
        }
    }

    private void doWork() throws IOException {
        long now0 = System.nanoTime();
        if (sending == null && outQueue.isEmpty()) {
            lastOutProgress = now0; // idle: nothing can stall
        }
        if (inWrite == null && inPayload == null && inHeader.position() == 0) {
            lastInProgress = now0;
        }
        for (Submission s; (s = submitted.poll()) != null; ) {
            if (s.skipNeed() > 0) {
                if (skipped[rank] == NONE) {
                    skipped[rank] = s.round();
                    need[rank] = s.skipNeed();
                    publishWatermarkLocked();
                    watermarkDirty = true;
                }
                continue;
            }
            ownSubmitTimes.add(new long[] {s.round(), s.at()});
            ReplicaWrite w = s.write();
            if (w != null && w.slot().length() > CRC_FOLLOWS_MIN) {
                // the CRC32C runs chunk by chunk just ahead of the send, the copy is COMPLETE at the end
                outQueue.add(Outgoing.ownWithCrcFollowing(encode(allocateHeader(), TYPE_DATA, rank, 1, s.round(),
                        w.slot().length(), 0, FLAG_CRC_FOLLOWS), w));
                continue;
            }
            if (w != null) {
                w.commit(); // a small image: CRC32C off the caller's thread, then COMPLETE
            }
            enqueueData(rank, s.round(), 1);
        }
        if (watermarkDirty) {
            watermarkDirty = false;
            ByteBuffer payload = ByteBuffer.allocate(watermarkLength(n)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                payload.putLong(watermark[i]).putLong(skipped[i]).putLong(need[i]);
            }
            lock.lock();
            try {
                for (long d : decisions) {
                    payload.putLong(d);
                }
            } finally {
                lock.unlock();
            }
            outQueue.add(new Outgoing(encode(allocateHeader(), TYPE_WATERMARK, rank, 0, 0, watermarkLength(n), 0),
                    payload.flip(), null, 0, 0));
        }
        // write what can go now: the sockets are nearly always writable, so a frame (or ACK) queued by
        // the last duty cycle leaves without a select round and an interest change first; only what
        // the socket does not take waits for OP_WRITE
        flushNow();
        boolean outWritable = sending != null ? sending.canWrite() : !outQueue.isEmpty();
        if (sending != null && !outWritable) {
            lastOutProgress = now0; // a forward waiting for its bytes to arrive: the input's clock runs
        }
        outKey.interestOps(SelectionKey.OP_READ | (outWritable ? SelectionKey.OP_WRITE : 0));
        inKey.interestOps(SelectionKey.OP_READ | (ackQueue.isEmpty() ? 0 : SelectionKey.OP_WRITE));
        selector.select(POLL_MILLIS);
        if (!running) {
            return;
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
                        writeOut();
                    }
                } else {
                    if (k.isReadable()) {
                        readIn();
                    }
                    if (k.isValid() && k.isWritable()) {
                        writeAcks();
                    }
                }
            } catch (ReplicationException e) {
                throw e;
            } catch (IOException e) {
                int peer = k == outKey ? links.next() : links.previous();
                throw new ReplicationException("rank " + rank + ": connection with rank " + peer + " failed ("
                        + e.getMessage() + ")" + (inWrite != null ? " in the middle of a copy" : ""), e);
            }
        }
        selector.selectedKeys().clear();
        long now = System.nanoTime();
        if ((sending != null || !outQueue.isEmpty()) && now - lastOutProgress > ioTimeoutNanos) {
            throw new ReplicationException("rank " + rank + ": no progress sending to rank " + links.next() + " for "
                    + TimeUnit.NANOSECONDS.toMillis(now - lastOutProgress) + " ms (peer stalled or dead)");
        }
        if ((inWrite != null || inHeader.position() > 0) && now - lastInProgress > ioTimeoutNanos) {
            throw new ReplicationException("rank " + rank + ": no progress receiving from rank " + links.previous()
                    + " for " + TimeUnit.NANOSECONDS.toMillis(now - lastInProgress) + " ms (peer stalled or dead)");
        }
    }

    private void flushNow() throws IOException {
        try {
            if (sending != null ? sending.canWrite() : !outQueue.isEmpty()) {
                writeOut();
            }
        } catch (ReplicationException e) {
            throw e;
        } catch (IOException e) {
            throw new ReplicationException("rank " + rank + ": connection with rank " + links.next() + " failed ("
                    + e.getMessage() + ")", e);
        }
        try {
            if (!ackQueue.isEmpty()) {
                writeAcks();
            }
        } catch (ReplicationException e) {
            throw e;
        } catch (IOException e) {
            throw new ReplicationException("rank " + rank + ": connection with rank " + links.previous() + " failed ("
                    + e.getMessage() + ")" + (inWrite != null ? " in the middle of a copy" : ""), e);
        }
    }

    private void enqueueData(int owner, long round, int hop) throws ReplicationException {
        ReplicaSlot slot = store.find(owner, round);
        if (slot == null) {
            throw new ReplicationException("rank " + rank + ": copy of rank " + owner + " round " + round
                    + " vanished before it was sent (overwritten too early)");
        }
        ByteBuffer header = encode(allocateHeader(), TYPE_DATA, owner, hop, round, slot.length(), slot.crc32c());
        outQueue.add(new Outgoing(header, null, slot, slot.length(), slot.length()));
    }

    private void writeOut() throws IOException {
        SocketChannel ch = links.toNext();
        // bounded, so that a long image does not keep the agent from its inbound side (ACKs, copies)
        for (int writes = 0; writes < WRITES_PER_CYCLE; writes++) {
            if (sending == null) {
                sending = outQueue.poll();
                if (sending == null) {
                    return;
                }
            }
            long wrote = sending.writeTo(ch, zeroCopy, gather);
            if (wrote > 0) {
                lastOutProgress = System.nanoTime();
                if (sending.isData()) {
                    counters.bytesSent.addAndGet(wrote);
                }
            }
            if (!sending.done()) {
                if (wrote > 0 && sending.canWrite()) {
                    continue; // the socket took what was offered (one CRC32C step): offer the next
                }
                return; // socket buffer full (wait for OP_WRITE), or a forward waiting for its bytes
            }
            sending = null;
        }
    }

    private void readAcks() throws IOException {
        SocketChannel ch = links.toNext();
        for (;;) {
            int r = ch.read(ackIn);
            if (r < 0) {
                throw new ReplicationException("rank " + rank + ": rank " + links.next() + " closed the connection",
                        new EOFException());
            }
            if (ackIn.hasRemaining()) {
                return;
            }
            ackIn.flip();
            checkMagic(ackIn, links.next());
            if (ackIn.getInt(TYPE_OFFSET) == TYPE_GOODBYE) {
                throw goodbye(links.next());
            }
            if (ackIn.getInt(TYPE_OFFSET) != TYPE_ACK) {
                throw new ReplicationException("rank " + rank + ": unexpected frame type " + ackIn.getInt(TYPE_OFFSET)
                        + " from rank " + links.next());
            }
            onAck(ackIn.getInt(OWNER_OFFSET), ackIn.getLong(ROUND_OFFSET), ackIn.getInt(HOP_OFFSET));
            ackIn.clear();
        }
    }

    private void onAck(int owner, long round, int hop) throws ReplicationException {
        int myHop = Math.floorMod(rank - owner, n);
        if (hop != myHop + 1) {
            throw new ReplicationException("rank " + rank + ": ack for rank " + owner + " round " + round + " hop " + hop
                    + " from rank " + links.next() + " does not fit the ring");
        }
        if (owner != rank) {
            ackQueue.add(encode(allocateHeader(), TYPE_ACK, owner, myHop, round, 0, 0));
            return;
        }
        while (!ownSubmitTimes.isEmpty() && ownSubmitTimes.peek()[0] <= round) {
            long[] t = ownSubmitTimes.poll();
            if (t[0] == round) {
                counters.lastRoundReplicationNanos.set(System.nanoTime() - t[1]);
            }
        }
        lock.lock();
        try {
            if (round > completedRound) {
                completedRound = round;
            }
            counters.roundsCompleted.incrementAndGet();
            watermark[rank] = Math.max(watermark[rank], round);
            publishWatermark();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        watermarkDirty = true;
    }

    /** Called with the lock held. */
    private void publishWatermark() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            watermarkView[i] = watermark[i];
            skippedView[i] = skipped[i];
            needView[i] = need[i];
            min = Math.min(min, watermark[i]);
        }
        globalCompletedRound = min;
    }

    private void publishWatermarkLocked() {
        lock.lock();
        try {
            publishWatermark();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void readIn() throws IOException {
        SocketChannel ch = links.fromPrev();
        for (;;) {
            if (inPayload == null) {
                int r = ch.read(inHeader);
                if (r < 0) {
                    throw new ReplicationException("rank " + rank + ": rank " + links.previous() + " closed the connection",
                            new EOFException());
                }
                if (r > 0) {
                    lastInProgress = System.nanoTime();
                }
                if (inHeader.hasRemaining()) {
                    return;
                }
                inHeader.flip();
                checkMagic(inHeader, links.previous());
                startPayload();
                if (inPayload == null) {
                    continue;
                }
            }
            int end0 = inPayload.limit();
            inPayload.limit(Math.min(end0, inPayload.position() + READ_CHUNK));
            int r = ch.read(inPayload);
            inPayload.limit(end0);
            if (r < 0) {
                throw new ReplicationException("rank " + rank + ": rank " + links.previous()
                        + " closed the connection in the middle of a copy", new EOFException());
            }
            if (r > 0) {
                lastInProgress = System.nanoTime();
                if (inWrite != null) {
                    counters.bytesReceived.addAndGet(r);
                    int end = inPayload.position();
                    inCrc.update(inPayload.duplicate().position(end - r).limit(end)); // still in cache
                    inReceived += r;
                    if (inForward != null) {
                        inForward.available = inReceived; // stored: the next rank may have it now
                    }
                }
            }
            if (inPayload.hasRemaining()) {
                return;
            }
            if (inWrite != null && inReceived < inWrite.length()) {
                inPayload = inWrite.region(inReceived, inWrite.length() - inReceived); // the next mapping window
                continue;
            }
            finishPayload();
        }
    }

    private void startPayload() throws IOException {
        int type = inHeader.getInt(TYPE_OFFSET);
        long length = inHeader.getLong(LENGTH_OFFSET);
        if (inAwaitingEnd) {
            finishCopyAtEnd(type, length);
            return;
        }
        if (type == TYPE_DATA) {
            int owner = inHeader.getInt(OWNER_OFFSET);
            int hop = inHeader.getInt(HOP_OFFSET);
            if (hop < 1 || hop > m || Math.floorMod(rank - owner, n) != hop) {
                throw new ReplicationException("rank " + rank + ": copy of rank " + owner + " with hop " + hop
                        + " does not belong here (m=" + m + ")");
            }
            inWrite = store.beginWrite(owner, inHeader.getLong(ROUND_OFFSET), length);
            inReceived = 0;
            inPayload = inWrite.region(0, length);
            inCrc.reset();
            int flags = inHeader.getInt(FLAGS_OFFSET);
            inTrails = (flags & FLAG_CRC_FOLLOWS) != 0;
            if (hop < m) {
                // cut-through: the copy goes on to the next holder as it arrives, under the owner's CRC32C
                inForward = new Outgoing(encode(allocateHeader(), TYPE_DATA, owner, hop + 1, inWrite.round(), length,
                        inHeader.getInt(CRC_OFFSET), flags & FLAG_CRC_FOLLOWS), null, inWrite.slot(), length, 0);
                inForward.trails = inTrails;
                outQueue.add(inForward);
                counters.framesForwarded.incrementAndGet();
            }
        } else if (type == TYPE_WATERMARK) {
            if (length != watermarkLength(n)) {
                throw new ReplicationException("rank " + rank + ": watermark of " + length + " bytes for " + n + " ranks");
            }
            inPayload = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
        } else if (type == TYPE_GOODBYE) {
            throw goodbye(links.previous());
        } else {
            throw new ReplicationException("rank " + rank + ": unexpected frame type " + type + " from rank " + links.previous());
        }
        if (!inPayload.hasRemaining()) {
            finishPayload();
        }
    }

    private void finishPayload() throws IOException {
        int type = inHeader.getInt(TYPE_OFFSET);
        if (type == TYPE_DATA && inTrails) {
            // the payload is in; the copy completes when its DATA_END frame brings the owner's CRC32C
            inAwaitingEnd = true;
            inPayload = null;
            inHeader.clear();
            return;
        }
        if (type == TYPE_DATA) {
            int owner = inWrite.owner();
            long round = inWrite.round();
            int hop = inHeader.getInt(HOP_OFFSET);
            ReplicaWrite w = inWrite;
            inWrite = null;
            inForward = null;
            // verified before COMPLETE; on a mismatch the slot is left EMPTY and the agent fails, which
            // closes its connections: the next rank drops its half of the forwarded copy. The forward's
            // last bytes are written only after this (writeOut runs later in the duty cycle), so no
            // ACK for this copy can arrive before it is verified here.
            w.commitComputed((int) inCrc.getValue(), inHeader.getInt(CRC_OFFSET));
            if (hop == m) {
                ackQueue.add(encode(allocateHeader(), TYPE_ACK, owner, hop, round, 0, 0));
            }
        } else {
            inPayload.flip();
            boolean changedAny = false;
            boolean forward = false; // news for the next rank: a change to an entry that is not its own
            int next = links.next();
            for (int i = 0; i < n; i++) {
                long w = inPayload.getLong();
                long s0 = inPayload.getLong();
                long x = inPayload.getLong();
                boolean changedHere = false;
                if (w > watermark[i]) {
                    watermark[i] = w;
                    changedHere = true;
                }
                if (s0 != NONE && skipped[i] == NONE) {
                    skipped[i] = s0; // set once per owner, by the owner: every copy carries the same pair
                    need[i] = x;
                    changedHere = true;
                }
                changedAny |= changedHere;
                forward |= changedHere && i != next;
            }
            long r0 = inPayload.getLong();
            long v0 = inPayload.getLong();
            long r1 = inPayload.getLong();
            long v1 = inPayload.getLong();
            lock.lock();
            try {
                if (r0 > decisions[0]) { // the decider's newer pair, whole: it goes on until the decider
                    decisions[0] = r0;
                    decisions[1] = v0;
                    decisions[2] = r1;
                    decisions[3] = v1;
                    changedAny = true;
                    forward |= next != 0;
                }
            } finally {
                lock.unlock();
            }
            if (changedAny) {
                // an entry goes around the ring once and stops before its owner, which knows it: with
                // n = 2 no watermark is ever echoed back, a frame and a wake-up per round saved
                watermarkDirty |= forward;
                publishWatermarkLocked();
            }
        }
        inPayload = null;
        inHeader.clear();
    }

    /** The frame after a FLAG_CRC_FOLLOWS payload: must be its DATA_END; verifies and completes the copy. */
    private void finishCopyAtEnd(int type, long length) throws IOException {
        ReplicaWrite w = inWrite;
        int owner = w.owner();
        long round = w.round();
        int hop = Math.floorMod(rank - owner, n);
        if (type != TYPE_DATA_END || inHeader.getInt(OWNER_OFFSET) != owner || inHeader.getLong(ROUND_OFFSET) != round
                || inHeader.getInt(HOP_OFFSET) != hop || length != w.slot().length()) {
            throw new ReplicationException("rank " + rank + ": expected the end of rank " + owner + "'s round " + round
                    + " from rank " + links.previous() + ", got frame type " + type);
        }
        int crc = inHeader.getInt(CRC_OFFSET);
        Outgoing forward = inForward;
        inWrite = null;
        inForward = null;
        inAwaitingEnd = false;
        inTrails = false;
        inHeader.clear();
        // verified before COMPLETE (a mismatch leaves the slot EMPTY and fails the agent); only then
        // does the forward get its DATA_END, so the next rank cannot complete a copy this rank rejected
        w.commitComputed((int) inCrc.getValue(), crc);
        if (forward != null) {
            forward.trailer = encode(allocateHeader(), TYPE_DATA_END, owner, hop + 1, round, length, crc);
        }
        if (hop == m) {
            ackQueue.add(encode(allocateHeader(), TYPE_ACK, owner, hop, round, 0, 0));
        }
    }

    private void writeAcks() throws IOException {
        SocketChannel ch = links.fromPrev();
        while (!ackQueue.isEmpty()) {
            ByteBuffer b = ackQueue.peek();
            ch.write(b);
            if (b.hasRemaining()) {
                return;
            }
            ackQueue.poll();
        }
    }

    /** Best effort, only between frames: tells both neighbours that this rank leaves deliberately. */
    private void sayGoodbye() {
        try {
            if (sending == null) {
                links.toNext().write(encode(allocateHeader(), TYPE_GOODBYE, rank, 0, 0, 0, 0));
            }
            ByteBuffer ack = ackQueue.peek();
            if (ack == null || ack.position() == 0) {
                links.fromPrev().write(encode(allocateHeader(), TYPE_GOODBYE, rank, 0, 0, 0, 0));
            }
        } catch (IOException e) {
            LOG.debug("rank {}: goodbye not delivered", rank, e);
        }
    }

    private ReplicationException goodbye(int from) {
        return new ReplicationException("rank " + rank + ": rank " + from + " closed its end of the ring deliberately");
    }

    private void checkMagic(ByteBuffer header, int from) throws ReplicationException {
        if (header.getInt(MAGIC_OFFSET) != MAGIC) {
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
            } else {
                LOG.warn("{}", f.getMessage());
            }
        }
        running = false;
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
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
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.error("replication agent of rank {} did not stop within 10 s", rank);
        }
        links.close();
    }

    /** An own round handed to the agent; {@code write} is set when its CRC32C is still to be computed. */
    private static int watermarkLength(int ranks) {
        return ranks * WATERMARK_ENTRY_LENGTH + WATERMARK_DECISIONS_LENGTH;
    }

    private record Submission(long round, long at, ReplicaWrite write, long skipNeed) {
    }

    /**
     * One frame on its way to the next rank: its header, then a payload held in memory (a watermark)
     * or an image in a slot. A forwarded image may still be arriving: only its first
     * {@code available} bytes are stored, and the frame waits (without asking for OP_WRITE) until
     * more arrive.
     */
    private static final class Outgoing {
        final ByteBuffer header;
        final ByteBuffer bytes;
        final ReplicaSlot slot;
        final long length;
        long sent;
        long available;
        /** A DATA_END frame follows the payload; {@link #trailer} is it once the CRC32C is known. */
        boolean trails;
        ByteBuffer trailer;
        /** An own copy whose CRC32C is computed as it is sent and which is committed at the end. */
        ReplicaWrite ownWrite;
        java.util.zip.CRC32C crc;
        long crcUpTo;

        static Outgoing ownWithCrcFollowing(ByteBuffer header, ReplicaWrite write) {
            long length = write.slot().length();
            Outgoing o = new Outgoing(header, null, write.slot(), length, length);
            o.trails = true;
            o.ownWrite = write;
            o.crc = new java.util.zip.CRC32C();
            return o;
        }

        /** The own copy is complete in memory: keep it even though it was not sent (agent stopping). */
        void commitOwnCopy() {
            if (ownWrite != null) {
                ownWrite.commit();
                ownWrite = null;
            }
        }

        Outgoing(ByteBuffer header, ByteBuffer bytes, ReplicaSlot slot, long length, long available) {
            this.header = header;
            this.bytes = bytes;
            this.slot = slot;
            this.length = bytes != null ? bytes.remaining() : length;
            this.available = bytes != null ? this.length : available;
        }

        boolean isData() {
            return slot != null;
        }

        /** @return whether a write could make progress now */
        boolean canWrite() {
            if (header.hasRemaining() || (bytes != null ? bytes.hasRemaining() : sent < available)) {
                return true;
            }
            return trails && sent == length && (trailer != null ? trailer.hasRemaining() : ownWrite != null);
        }

        /** The image bytes from {@code from} towards {@code to}: all of them, or up to the end of a mapping window. */
        private ByteBuffer slotView(long from, long to) {
            return slot.region(from, to - from);
        }

        long writeTo(SocketChannel ch, boolean zeroCopy, ByteBuffer[] gather) throws IOException {
            if (header.hasRemaining()) {
                ByteBuffer payload = bytes != null ? bytes
                        : length <= GATHER_MAX && available > sent ? slotView(sent, available) : null;
                if (payload == null) {
                    return ch.write(header);
                }
                // a small frame: header and payload in one write, one segment, one wake-up of the reader
                int before = payload.position();
                gather[0] = header;
                gather[1] = payload;
                long wrote = ch.write(gather);
                gather[0] = gather[1] = null;
                if (bytes == null) {
                    sent += payload.position() - before;
                }
                return wrote;
            }
            if (bytes != null) {
                return ch.write(bytes);
            }
            if (sent >= available) {
                return trails && sent == length ? writeTrailer(ch) : 0;
            }
            long upTo = available;
            if (crc != null) {
                // CRC32C one step ahead of the send: the bytes are in cache for the kernel's copy, and the
                // receiver works on the previous chunk meanwhile
                if (crcUpTo <= sent) {
                    ByteBuffer part = slotView(crcUpTo, crcUpTo + Math.min(READ_CHUNK, length - crcUpTo));
                    crcUpTo += part.remaining();
                    crc.update(part);
                }
                upTo = crcUpTo;
            }
            long wrote;
            if (zeroCopy && length > GATHER_MAX) {
                wrote = slot.channel().transferTo(ReplicaSlotDescriptor.HEADER_LENGTH + sent, upTo - sent, ch);
            } else {
                wrote = ch.write(slotView(sent, upTo));
            }
            sent += wrote;
            return wrote;
        }

        private long writeTrailer(SocketChannel ch) throws IOException {
            if (trailer == null && ownWrite != null) {
                int value = (int) crc.getValue();
                ownWrite.commitComputed(value, value); // the local copy is COMPLETE before its DATA_END leaves
                ownWrite = null;
                trailer = encode(allocateHeader(), TYPE_DATA_END, header.getInt(OWNER_OFFSET),
                        header.getInt(HOP_OFFSET), header.getLong(ROUND_OFFSET), length, value);
            }
            return trailer == null ? 0 : ch.write(trailer);
        }

        boolean done() {
            return !header.hasRemaining() && (bytes != null ? !bytes.hasRemaining() : sent == length)
                    && (!trails || (trailer != null && !trailer.hasRemaining()));
        }
    }
}
