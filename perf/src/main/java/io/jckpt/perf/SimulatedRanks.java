package io.jckpt.perf;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.runtime.control.RecoverFrame;
import io.jckpt.spi.Collective;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * Thousands of simulated ranks in one JVM on one selector thread, each speaking the real control
 * protocol (handshake with the job secret's MAC, RANK_READY, EXCHANGE contributions, RANK_ROUND,
 * answers to RECOVER) to a real launcher-side {@link io.jckpt.runtime.control.ControlServer}. Driven
 * by {@code ControlPlaneBench} over stdin/stdout, one command a line; every phase answers
 * {@code done PHASE startNanos endNanos bytesFromLauncher bytesToLauncher [more]} with
 * {@link System#nanoTime()} stamps (CLOCK_MONOTONIC: comparable across the two JVMs of one machine).
 *
 * <p>A rank keeps only the head of a large frame (the exchange's epoch and sequence) and skips the
 * rest, so that 10^4 ranks receiving a full set each fit in one JVM; up to {@link #VERIFY_MAX_RANKS}
 * ranks every result is decoded and checked slot by slot against what each rank sent.
 *
 * <p>Ranks connect a window at a time (the open command's last number: at most that many connecting or
 * authenticating at once, as rank JVMs that start over some time), so that the launcher's listen
 * backlog is not what is measured.
 *
 * <p>Commands: {@code open PORT JOBID SECRETHEX N OPENBYTES RUN WINDOW}, {@code round R}, {@code kill RANK},
 * {@code replace RANK}, {@code close}.
 */
public final class SimulatedRanks {
    /** Up to this many ranks, results are decoded and checked in full. */
    static final int VERIFY_MAX_RANKS = 256;
    private static final long PHASE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);
    private static final int HELLO_LENGTH = 4 + 2 + ControlProtocol.NONCE_LENGTH;
    /** Bytes of a size agreement contribution (overflow, interval decision, step). */
    static final int SIZE_AGREEMENT_BYTES = 24;

    private final PrintStream out;
    private final Selector selector;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(1 << 18);
    private Rank[] ranks;
    private int port;
    private String jobId;
    private JobSecret secret;
    private int run;
    private int epoch;
    private long sequence;
    private long bytesIn;
    private long bytesOut;
    /** Ranks that have the result the current phase waits for. */
    private int have;
    /** Ranks that had a RECOVER in the current recovery. */
    private int recovered;
    private long lastRecoverNanos;
    private String failure;
    /** Ranks accepted so far in this open, and the next one to connect (at most a window's worth handshake at once). */
    private int accepted;
    private int nextToConnect;
    private long allAcceptedNanos;

    private SimulatedRanks(PrintStream out) throws IOException {
        this.out = out;
        this.selector = Selector.open();
    }

    /** One simulated rank: its socket and where it is in the protocol. */
    private final class Rank {
        final int id;
        SocketChannel channel;
        /** 0 connecting, 1 reading the hello, 2 reading the verdict, 3 frames. */
        int state;
        final ByteBuffer head = ByteBuffer.allocate(HELLO_LENGTH);
        final ArrayDeque<ByteBuffer> outbox = new ArrayDeque<>();
        /** Current frame: its length (-1 while unknown), its kept bytes, how many read so far. */
        int frameLength = -1;
        byte[] frame;
        int frameRead;
        final ByteBuffer lengthBytes = ByteBuffer.allocate(4);
        long haveSequence = -1;
        int haveEpoch = -1;
        boolean dead;

        Rank(int id) {
            this.id = id;
        }

        void connect() throws IOException {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            // spread the clients over source addresses: each has its own ephemeral ports (runs leave TIME_WAITs)
            channel.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, (byte) (1 + run % 200),
                    (byte) (id / 250), (byte) (1 + id % 250)}), 0));
            state = 0;
            head.clear();
            lengthBytes.clear();
            frameLength = -1;
            dead = false;
            if (channel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
                state = 1;
                channel.register(selector, SelectionKey.OP_READ, this);
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, this);
            }
        }

        void send(byte type, byte[] payload) {
            ByteBuffer b = ByteBuffer.allocate(5 + payload.length);
            b.putInt(1 + payload.length).put(type).put(payload).flip();
            outbox.add(b);
            flush();
        }

        void flush() {
            try {
                while (!outbox.isEmpty()) {
                    ByteBuffer b = outbox.peek();
                    bytesOut += channel.write(b);
                    if (b.hasRemaining()) {
                        break;
                    }
                    outbox.poll();
                }
                SelectionKey key = channel.keyFor(selector);
                if (key != null && key.isValid()) {
                    key.interestOps(SelectionKey.OP_READ | (outbox.isEmpty() ? 0 : SelectionKey.OP_WRITE));
                }
            } catch (IOException e) {
                fail("rank " + id + " write: " + e);
            }
        }

        void close() {
            dead = true;
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing
            }
        }

        void readable() throws IOException {
            readBuffer.clear();
            int n = channel.read(readBuffer);
            if (n < 0) {
                if (!dead) {
                    fail("rank " + id + ": the launcher closed its connection");
                }
                close();
                return;
            }
            bytesIn += n;
            readBuffer.flip();
            while (readBuffer.hasRemaining()) {
                if (state == 1 || state == 2) {
                    int want = state == 1 ? HELLO_LENGTH : 1;
                    while (head.position() < want && readBuffer.hasRemaining()) {
                        head.put(readBuffer.get());
                    }
                    if (head.position() < want) {
                        return;
                    }
                    head.flip();
                    if (state == 1) {
                        if (head.getInt() != ControlProtocol.MAGIC || head.getShort() != ControlProtocol.VERSION) {
                            fail("rank " + id + ": not a launcher of this protocol");
                            return;
                        }
                        byte[] nonce = new byte[ControlProtocol.NONCE_LENGTH];
                        head.get(nonce);
                        ByteArrayOutputStream hello = new ByteArrayOutputStream();
                        DataOutputStream d = new DataOutputStream(hello);
                        d.writeInt(id);
                        d.writeUTF(jobId);
                        d.write(ControlProtocol.answer(secret, nonce, id));
                        outbox.add(ByteBuffer.wrap(hello.toByteArray()));
                        flush();
                        head.clear();
                        state = 2;
                    } else {
                        if (head.get() != ControlProtocol.ACCEPTED) {
                            fail("rank " + id + " refused");
                            return;
                        }
                        state = 3;
                        accepted++;
                        if (nextToConnect < ranks.length) {
                            ranks[nextToConnect++].connect(); // the window moves on
                        }
                        if (accepted == ranks.length) {
                            allAcceptedNanos = System.nanoTime();
                        }
                        send(ControlProtocol.RANK_READY, ByteBuffer.allocate(8).putLong(id).array());
                        contribute(Collective.of(Collective.Kind.OPEN), openContribution(id, epoch));
                    }
                    continue;
                }
                if (frameLength < 0) {
                    while (lengthBytes.hasRemaining() && readBuffer.hasRemaining()) {
                        lengthBytes.put(readBuffer.get());
                    }
                    if (lengthBytes.hasRemaining()) {
                        return;
                    }
                    frameLength = lengthBytes.flip().getInt();
                    lengthBytes.clear();
                    boolean keepAll = frameLength <= 4096 || ranks.length <= VERIFY_MAX_RANKS;
                    frame = new byte[keepAll ? frameLength : 64];
                    frameRead = 0;
                }
                int take = Math.min(readBuffer.remaining(), frameLength - frameRead);
                int keep = Math.max(0, Math.min(take, frame.length - frameRead));
                if (keep > 0) {
                    readBuffer.get(frame, frameRead, keep);
                }
                readBuffer.position(readBuffer.position() + take - keep);
                frameRead += take;
                if (frameRead == frameLength) {
                    frameLength = -1;
                    frame(frame);
                }
            }
        }

        void frame(byte[] f) throws IOException {
            byte type = f[0];
            ByteBuffer b = ByteBuffer.wrap(f, 1, f.length - 1);
            if (type == ControlProtocol.EXCHANGE_RESULT) {
                int e = b.getInt();
                long s = b.getLong();
                if (ranks.length <= VERIFY_MAX_RANKS) {
                    verify(ExchangeFrames.Result.decode(Arrays.copyOfRange(f, 1, f.length)));
                }
                if (e == epoch && s == sequence && (haveSequence != s || haveEpoch != e)) {
                    haveSequence = s;
                    haveEpoch = e;
                    have++;
                }
            } else if (type == ControlProtocol.RECOVER) {
                RecoverFrame frame = RecoverFrame.decode(Arrays.copyOfRange(f, 1, f.length));
                if (frame.epoch() != epoch) {
                    fail("rank " + id + " told to recover into epoch " + frame.epoch() + ", expected " + epoch);
                }
                recovered++;
                lastRecoverNanos = System.nanoTime();
                contribute(Collective.of(Collective.Kind.OPEN), openContribution(id, epoch));
            } else if (type == ControlProtocol.EXCHANGE_FAILED) {
                fail("rank " + id + ": " + ExchangeFrames.Failed.decode(Arrays.copyOfRange(f, 1, f.length)).message());
            }
        }

        void contribute(Collective call, byte[] bytes) {
            send(ControlProtocol.EXCHANGE, new ExchangeFrames.Contribution(epoch, sequence, call, 60_000, bytes).encode());
        }
    }

    /** Bytes of an open contribution (set by the open command). */
    private int openSize = 160;

    /** What rank r contributes to an open: distinct per rank (its endpoint differs), like the real status. */
    byte[] openContribution(int rank, int epoch) {
        byte[] b = new byte[openSize];
        ByteBuffer.wrap(b).putInt(rank).putInt(epoch);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7); // the fields every rank agrees on
        }
        return b;
    }

    /** What rank r contributes to the size agreement of round R: all the same but rank 0's (its decision). */
    static byte[] sizeContribution(int rank, long round) {
        return ByteBuffer.allocate(SIZE_AGREEMENT_BYTES).putLong(0).putLong(rank == 0 ? 1_000 : -1).putLong(round)
                .array();
    }

    private long verifyRound;

    private void verify(ExchangeFrames.Result result) {
        byte[][] all = result.all();
        if (all.length != ranks.length) {
            fail("result of " + all.length + " slots for " + ranks.length + " ranks");
            return;
        }
        for (int r = 0; r < all.length; r++) {
            byte[] expected = result.sequence() == 1 ? openContribution(r, result.epoch())
                    : sizeContribution(r, verifyRound);
            if (!Arrays.equals(expected, all[r])) {
                fail("result of exchange " + result.sequence() + " epoch " + result.epoch() + ": slot " + r + " differs");
                return;
            }
        }
    }

    private void fail(String why) {
        if (failure == null) {
            failure = why;
        }
    }

    /** Serves the sockets and the commands until stdin ends; every phase is bounded. */
    private void run(java.util.concurrent.BlockingQueue<String> commands) throws IOException, InterruptedException {
        while (true) {
            selector.select(20);
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                Rank rank = (Rank) key.attachment();
                try {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isConnectable()) {
                        rank.channel.finishConnect();
                        rank.state = 1;
                        key.interestOps(SelectionKey.OP_READ);
                        continue;
                    }
                    if (key.isWritable()) {
                        rank.flush();
                    }
                    if (key.isReadable()) {
                        rank.readable();
                    }
                } catch (IOException e) {
                    fail("rank " + rank.id + ": " + e);
                }
            }
            if (phase != null) {
                long now = System.nanoTime();
                if (phaseDone.getAsBoolean() || failure != null || now - phaseStart > PHASE_TIMEOUT_NANOS) {
                    if (failure == null && !phaseDone.getAsBoolean()) {
                        fail("timed out: " + have + " of " + ranks.length + " ranks had the result");
                    }
                    done(phase, phaseStart, now, phase.equals("recover") ? "" + lastRecoverNanos
                            : phase.equals("open") ? "" + allAcceptedNanos : "");
                    phase = null;
                }
            }
            if (phase == null) {
                String line = commands.poll();
                if (line != null) {
                    if (line.equals("exit")) {
                        return;
                    }
                    command(line);
                }
            }
        }
    }

    private String phase;
    private long phaseStart;
    private java.util.function.BooleanSupplier phaseDone;

    private void done(String what, long start, long end, String more) {
        out.println((failure == null ? "done " : "failed ") + what + " " + start + " " + end + " " + bytesIn + " "
                + bytesOut + (more.isEmpty() ? "" : " " + more) + (failure == null ? "" : " :: " + failure));
        out.flush();
    }

    private void command(String line) throws IOException {
        String[] w = line.trim().split(" ");
        bytesIn = 0;
        bytesOut = 0;
        failure = null;
        phaseStart = System.nanoTime();
        switch (w[0]) {
            case "open" -> {
                port = Integer.parseInt(w[1]);
                jobId = w[2];
                secret = JobSecret.fromHex(w[3]);
                ranks = new Rank[Integer.parseInt(w[4])];
                openSize = Integer.parseInt(w[5]);
                run = Integer.parseInt(w[6]);
                int window = Integer.parseInt(w[7]);
                epoch = 0;
                sequence = 1;
                have = 0;
                accepted = 0;
                for (int r = 0; r < ranks.length; r++) {
                    ranks[r] = new Rank(r);
                }
                for (nextToConnect = 0; nextToConnect < Math.min(window, ranks.length); nextToConnect++) {
                    ranks[nextToConnect].connect();
                }
                phase = "open";
                phaseDone = () -> have == ranks.length;
            }
            case "round" -> {
                long round = Long.parseLong(w[1]);
                verifyRound = round;
                sequence++;
                have = 0;
                for (Rank rank : ranks) {
                    rank.send(ControlProtocol.RANK_ROUND, ByteBuffer.allocate(24).putLong(round).putLong(1 << 20)
                            .putLong(1_000_000).array());
                    rank.contribute(Collective.of(Collective.Kind.SIZE_AGREEMENT, round), sizeContribution(rank.id, round));
                }
                phase = "round";
                phaseDone = () -> have == ranks.length;
            }
            case "kill" -> {
                // the next world: its first exchange is an open again; survivors answer RECOVER as it comes
                epoch++;
                sequence = 1;
                have = 0;
                recovered = 0;
                ranks[Integer.parseInt(w[1])].close();
                done("kill", phaseStart, phaseStart, "");
            }
            case "replace" -> {
                // the replacement connects now (the launcher has started the new world) and contributes
                ranks[Integer.parseInt(w[1])].connect();
                int survivors = ranks.length - 1;
                phase = "recover";
                phaseDone = () -> have == ranks.length && recovered == survivors;
            }
            case "close" -> {
                for (Rank rank : ranks) {
                    rank.close();
                }
                selector.selectNow();
                done("close", 0, 0, "");
            }
            default -> throw new IllegalArgumentException("unknown command " + line);
        }
    }

    /** Reads commands from stdin (a reader thread of its own) until it ends. */
    public static void main(String[] args) throws Exception {
        SimulatedRanks sim = new SimulatedRanks(System.out);
        java.util.concurrent.BlockingQueue<String> commands = new java.util.concurrent.LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (!line.isBlank()) {
                        commands.add(line.trim());
                        sim.selector.wakeup();
                    }
                }
            } catch (IOException e) {
                // stdin broken: the bench ended
            }
            commands.add("exit");
            sim.selector.wakeup();
        }, "sim-commands");
        reader.setDaemon(true);
        reader.start();
        sim.run(commands);
    }
}
