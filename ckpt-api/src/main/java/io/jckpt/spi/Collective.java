package io.jckpt.spi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one collective call between ranks is: its {@link Kind} (which exchange of which API call) and
 * the checkpoint round it belongs to. Every contribution to an exchange carries it, and the exchange
 * completes only when every rank made the same call ({@link #mismatch}): a rank that called a
 * different collective, or the same one for another round, fails every rank with an error that names
 * the ranks and both calls, instead of a misread message or rounds silently out of step.
 *
 * <p>Encoded in {@link #ENCODED_LENGTH} bytes: the kind's code (int) and the round (long).
 *
 * @param kind  the exchange
 * @param round the checkpoint round it belongs to, or {@link #NO_ROUND} when it belongs to none
 */
public record Collective(Kind kind, long round) {
    /** The round of a collective that belongs to no checkpoint round (open, its recovery steps). */
    public static final long NO_ROUND = -1;
    /** Bytes of {@link #encode}. */
    public static final int ENCODED_LENGTH = Integer.BYTES + Long.BYTES;

    /** The exchanges of the library and of tests; codes are part of the wire format. */
    public enum Kind {
        /** Ckpt.open(): options, stores, endpoints, disk inventory. */
        OPEN(1, "Ckpt.open()", "open status"),
        /**
         * Ckpt.open() in a recovery: every copy each rank holds, when the newest copies (carried by
         * {@link #OPEN}) did not give a conclusive plan. (Code 2 was the newest copies' own exchange.)
         */
        RESTORE_PLAN_OLDER(3, "Ckpt.open()", "restore plan of older copies"),
        /**
         * Rollback transfers done everywhere before the ring is joined in open(); after an in-memory
         * rollback the ring is joined at the first here(), after {@link #RESTORE_CHECK}.
         */
        RESTORE_DONE(4, "Ckpt.open()", "rollback transfers done"),
        /** here(): whether the image outgrew its slot. */
        SIZE_AGREEMENT(5, "here()", "slot size agreement"),
        /** here(): every rank's image length and memory budget, before a new store layout. */
        RECONFIGURE(6, "here()", "store reconfiguration"),
        /** A switch of the store layout (m or slot capacity): every rank ready. */
        LAYOUT_SWITCH(7, "here()", "store layout switch"),
        /** Ckpt.ctrl(): the same options on every rank. */
        CTRL(8, "ctrl()", "ctrl options"),
        /** Ckpt.close(): every rank closes at the same round. */
        CLOSE(9, "close()", "close"),
        /** Ckpt.close(): every rank's flushes settled. */
        CLOSE_SETTLED(10, "close()", "flushes settled"),
        /**
         * The first here(), ctrl() or close() after a recovery: the tags of the restored checkpoint that
         * each rank neither restored nor removed (none, when the program restored everything).
         */
        RESTORE_CHECK(11, "the first here(), ctrl() or close() after a recovery", "restored tags"),
        /** Ckpt.open() in a recovery: every rank's step of the round restored ({@code here(step)}). */
        RESTORED_STEPS(12, "Ckpt.open()", "restored steps"),
        /** An exchange of a test or tool, outside the library's API. */
        TEST(100, "a test exchange", "test");

        private final int code;
        private final String call;
        private final String what;

        Kind(int code, String call, String what) {
            this.code = code;
            this.call = call;
            this.what = what;
        }

        /** @return the wire code */
        public int code() {
            return code;
        }

        /** @return the API call that makes this exchange, as a user wrote it */
        public String call() {
            return call;
        }

        /** @return what the exchange is about, for a person: {@code slot size agreement} */
        public String what() {
            return what;
        }

        /**
         * @param code a wire code
         * @return the kind
         * @throws IllegalArgumentException for an unknown code
         */
        public static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown collective kind code " + code);
        }
    }

    /** Checks the arguments. */
    public Collective {
        Objects.requireNonNull(kind, "kind");
        if (round < NO_ROUND) {
            throw new IllegalArgumentException("round " + round + " of a " + kind + " collective");
        }
    }

    /**
     * @param kind the exchange
     * @return a collective that belongs to no round
     */
    public static Collective of(Kind kind) {
        return new Collective(kind, NO_ROUND);
    }

    /**
     * @param kind  the exchange
     * @param round the round it belongs to
     * @return the collective
     */
    public static Collective of(Kind kind, long round) {
        return new Collective(kind, round);
    }

    /** @return how a person reads this call: {@code here() #3 (slot size agreement)} */
    public String describe() {
        String call = kind.call;
        if (round != NO_ROUND) {
            call = kind == Kind.SIZE_AGREEMENT || kind == Kind.RECONFIGURE || kind == Kind.LAYOUT_SWITCH
                    ? call + " #" + round : call + " at round " + round;
        }
        return call + " (" + kind.what + ")";
    }

    /** @return the wire form, {@link #ENCODED_LENGTH} bytes */
    public byte[] encode() {
        return ByteBuffer.allocate(ENCODED_LENGTH).putInt(kind.code).putLong(round).array();
    }

    /**
     * @param bytes the wire form
     * @return the collective
     * @throws IllegalArgumentException when the bytes are not one
     */
    public static Collective decode(byte[] bytes) {
        if (bytes.length != ENCODED_LENGTH) {
            throw new IllegalArgumentException("a collective descriptor has " + ENCODED_LENGTH + " bytes, got "
                    + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new Collective(Kind.ofCode(b.getInt()), b.getLong());
    }

    /**
     * Compares the calls ranks made at the same position of their sequence of exchanges.
     *
     * @param byRank the call of each rank that arrived so far (rank to call)
     * @return {@code null} when they are all the same call, else the error for a person:
     *         {@code rank 1 called here() #1 (...) while ranks 0, 2, 3 called close() (...)}
     */
    public static String mismatch(Map<Integer, Collective> byRank) {
        Map<Collective, List<Integer>> groups = new java.util.LinkedHashMap<>();
        for (Map.Entry<Integer, Collective> e : new TreeMap<>(byRank).entrySet()) {
            groups.computeIfAbsent(e.getValue(), c -> new ArrayList<>()).add(e.getKey());
        }
        if (groups.size() <= 1) {
            return null;
        }
        List<Map.Entry<Collective, List<Integer>>> sorted = new ArrayList<>(groups.entrySet());
        // the smallest group is the odd one out; on a tie, the group of the higher first rank
        sorted.sort((a, b) -> a.getValue().size() != b.getValue().size()
                ? Integer.compare(a.getValue().size(), b.getValue().size())
                : Integer.compare(b.getValue().get(0), a.getValue().get(0)));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < sorted.size(); i++) {
            Map.Entry<Collective, List<Integer>> g = sorted.get(i);
            sb.append(i == 0 ? "" : i == sorted.size() - 1 ? " while " : ", ")
                    .append(describeRanks(g.getValue())).append(' ')
                    .append("called ").append(g.getKey().describe());
        }
        boolean sameKind = groups.keySet().stream().map(Collective::kind).distinct().count() == 1;
        return sb.append(sameKind ? ": the ranks are at different checkpoint rounds (did a rank skip a here()?)"
                : ": every rank must make the same collective calls in the same order").toString();
    }

    /**
     * @param ranks some ranks, in order
     * @return how a message names them: {@code rank 1}, {@code ranks 0,2,3}
     */
    public static String describeRanks(List<Integer> ranks) {
        StringBuilder sb = new StringBuilder(ranks.size() == 1 ? "rank " : "ranks ");
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(ranks.get(i));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return describe();
    }
}
