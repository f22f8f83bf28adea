package io.jckpt.runtime.control;

/**
 * The launcher-to-rank control channel: handshake and frame layout, described in one place.
 *
 * <p>Handshake (server = launcher, client = rank or multicore host, one connection per rank):
 * <pre>
 *   server: int MAGIC, short VERSION, byte[NONCE_LENGTH] nonce
 *   client: int rank, UTF jobId, byte[MAC_LENGTH] answer(secret, nonce, rank)
 *   server: byte ACCEPTED, or byte REJECTED + UTF reason, then close
 * </pre>
 * A warm standby JVM (not yet a rank) claims {@code rank = STANDBY_CLAIM_BASE - id}, a negative
 * number, until the launcher assigns it a rank; it then opens a second connection as that rank.
 * Frames after the handshake: {@code int length (of type + payload), byte type, payload}.
 * The secret itself never crosses the wire; it reaches ranks through their environment, which
 * only the same user can read.
 */
public final class ControlProtocol {
    /**
     * A client's answer to the server's nonce: the job secret's HMAC-SHA256 over the nonce and the
     * claimed rank ({@link io.jckpt.imem.JobSecret#mac}, the same secret and MAC as the data channels).
     *
     * @param secret the job secret
     * @param nonce  the server's nonce
     * @param rank   the rank claimed
     * @return {@value #MAC_LENGTH} bytes
     */
    public static byte[] answer(io.jckpt.imem.JobSecret secret, byte[] nonce, int rank) {
        return secret.mac(nonce, java.nio.ByteBuffer.allocate(4).putInt(rank).array());
    }

    /**
     * How long either side of the handshake waits for the other (ms). A handshake is part of a rank
     * JVM's start, which only the start timeout bounds (60 s by default): on 2 cores at a load of 40-50
     * a starting JVM answered the nonce more than the 5 s it once had after it (its first HMAC), was
     * refused, halted, and its job failed at start.
     */
    public static final int HANDSHAKE_MILLIS = 60_000;

    /** "JCKC". */
    public static final int MAGIC = 0x4A434B43;
    public static final short VERSION = 3; // 2: typed rank events; 3: exchange results send runs of equal slots once
    public static final int NONCE_LENGTH = 16;
    public static final int MAC_LENGTH = 32;
    public static final byte ACCEPTED = 1;
    public static final byte REJECTED = 0;
    /** Frames larger than this are a protocol error (the channel carries control data only). */
    public static final int MAX_FRAME_LENGTH = 1 << 26;

    /** rank to launcher: the program is about to start; payload: long pid. */
    public static final byte RANK_READY = 1;
    /** rank to launcher: an event for the launcher's log; payload: one {@link io.jckpt.spi.RankEvent} (RankEventCodec). */
    public static final byte RANK_EVENT = 2;
    /** rank to launcher: the program ended; payload: int exit code, UTF reason. Sent before exiting. */
    public static final byte RANK_EXIT = 3;
    /**
     * rank to launcher: this rank's part of a typed collective (an allgather through the launcher);
     * payload: {@link ExchangeFrames.Contribution} (epoch, sequence, the collective, its timeout, the bytes).
     */
    public static final byte EXCHANGE = 4;
    /**
     * rank to launcher: checkpoint progress, sent at most every {@code PROGRESS_MILLIS} (the newest
     * here() only); payload: long round, long image bytes, long blocking nanos.
     */
    public static final byte RANK_ROUND = 5;
    /**
     * rank to launcher: alive (sent when nothing else was sent for a while; every period by a rank
     * that watches its launcher); no payload. The launcher answers each with a HEARTBEAT of its own,
     * which a watching rank counts as the launcher alive (see
     * {@code RankEnvironment.LAUNCHER_TIMEOUT_MILLIS}).
     */
    public static final byte HEARTBEAT = 6;
    /**
     * standby to launcher: warmed up and ready to take over a rank; payload: long warm-up nanos,
     * long pid.
     */
    public static final byte STANDBY_READY = 7;
    /**
     * rank to launcher: how long the program thread has waited inside a communication call (MPJ
     * Express or a status exchange) using no CPU, sent about once a second while it does and once
     * with 0 when it stops; payload: long milliseconds, UTF call. The launcher declares a deadlock when
     * every rank of a world waits so ({@code DeadlockWatch}).
     */
    public static final byte RANK_WAIT = 8;
    /** How often a standby tells the launcher it is alive (it exits when that write fails). */
    public static final long STANDBY_HEARTBEAT_MILLIS = 1_000;
    /** Claimed rank of standby 0 in the handshake; standby k claims {@code STANDBY_CLAIM_BASE - k}. */
    public static final int STANDBY_CLAIM_BASE = -1;
    /** Lowest claim a standby may make (bounds the ids). */
    public static final int STANDBY_CLAIM_MIN = -(1 << 20);
    /** How often a rank reports its checkpoint progress at most. */
    public static final long PROGRESS_MILLIS = 20;
    /** launcher to rank: stop now; payload: UTF reason. */
    public static final byte SHUTDOWN = 10;
    /**
     * launcher to rank: the completed exchange; payload: int epoch, long sequence, int n, then the n
     * slots by rank, a run of equal ones once ({@link ExchangeFrames.Result}).
     */
    public static final byte EXCHANGE_RESULT = 11;
    /**
     * launcher to a surviving rank: abandon the current MPJ world and re-enter the program in a new
     * one; payload: int new epoch, UTF MPJ conf of the new world, int n, n failed ranks.
     */
    public static final byte RECOVER = 12;
    /**
     * launcher to rank: every rank completed in this epoch; the rank may exit now (until then a rank
     * whose program completed stays, so it can rejoin a new world if another rank fails);
     * payload: int epoch.
     */
    public static final byte JOB_COMPLETE = 13;
    /**
     * launcher to a standby: become rank r of a new epoch (a failed rank's replacement); payload:
     * int rank, then a {@link #RECOVER} payload (epoch, MPJ conf, failed ranks).
     */
    public static final byte ASSIGN = 14;
    /**
     * launcher to rank: an exchange failed on every rank (ranks made different collective calls, or
     * some did not contribute in time); payload: {@link ExchangeFrames.Failed}.
     */
    public static final byte EXCHANGE_FAILED = 15;
    /**
     * launcher to a rank or standby: answer with a {@link #HEARTBEAT} now; no payload. At a recovery
     * across hosts an answer proves that the rank's host lives (see {@code HostCheck}): a round trip on
     * an open connection instead of a remote-shell session.
     */
    public static final byte PING = 16;
    /** Largest contribution of one rank to a status exchange. */
    public static final int MAX_EXCHANGE_BYTES = 64 * 1024;

    private ControlProtocol() {
    }
}
