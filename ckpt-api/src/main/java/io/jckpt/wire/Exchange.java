package io.jckpt.wire;

import io.jckpt.CkptException;
import io.jckpt.spi.Collective;
import io.jckpt.spi.RankCollective;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One exchange between ranks as a type: its {@link Collective.Kind}, its message record {@code T} and
 * that record's codec, the only one. {@link #allgather} gives this rank's message and returns every
 * rank's, decoded, over {@link RankCollective#allgather(Collective, byte[], Duration)}.
 *
 * <p>Every message starts with a {@value #HEADER_LENGTH}-byte header: the kind's code (short) and the
 * message layout's version (short); then its fields (big-endian, {@link WireWriter}). {@link #decode}
 * refuses bytes that are cut short, have bytes left after the last field, carry another kind or
 * version, or hold a field out of range, with a {@link WireFormatException} naming the exchange and the
 * rank that sent them. Made only in this package: every codec of an exchange lives here.
 *
 * @param <T> the message record
 */
public final class Exchange<T> {
    /** Bytes of the header: the kind's code and the layout version, a short each. */
    public static final int HEADER_LENGTH = 2 * Short.BYTES;

    private final Collective.Kind kind;
    private final int version;
    private final Class<T> type;
    private final BiConsumer<WireWriter, T> writer;
    private final Function<WireReader, T> reader;

    private Exchange(Collective.Kind kind, int version, Class<T> type, BiConsumer<WireWriter, T> writer,
                     Function<WireReader, T> reader) {
        if (kind.code() > Short.MAX_VALUE || version < 1 || version > Short.MAX_VALUE) {
            throw new IllegalArgumentException(kind + " version " + version);
        }
        this.kind = kind;
        this.version = version;
        this.type = type;
        this.writer = writer;
        this.reader = reader;
    }

    static <T> Exchange<T> of(Collective.Kind kind, int version, Class<T> type, BiConsumer<WireWriter, T> writer,
                              Function<WireReader, T> reader) {
        return new Exchange<>(kind, version, type, writer, reader);
    }

    /** @return the collective this message is exchanged in */
    public Collective.Kind kind() {
        return kind;
    }

    /** @return the layout version written in every message */
    public int version() {
        return version;
    }

    /** @return the message record's class */
    public Class<T> type() {
        return type;
    }

    /**
     * @param message a message
     * @return its wire form: the header, then its fields
     */
    public byte[] encode(T message) {
        Objects.requireNonNull(message, "message");
        WireWriter w = new WireWriter().i16(kind.code()).i16(version);
        writer.accept(w, message);
        return w.toArray();
    }

    /**
     * @param bytes a message's wire form, sender unknown
     * @return the message
     * @throws WireFormatException when the bytes are not a message of this exchange
     */
    public T decode(byte[] bytes) {
        return decode(CkptException.UNKNOWN_RANK, bytes);
    }

    /**
     * @param rank  the rank that sent the bytes, for the error
     * @param bytes a message's wire form
     * @return the message
     * @throws WireFormatException naming this exchange and {@code rank} when the bytes are not a message of it
     */
    public T decode(int rank, byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < HEADER_LENGTH) {
            throw new WireFormatException(kind, rank, "truncated: " + bytes.length + " bytes, shorter than the "
                    + HEADER_LENGTH + "-byte header", null);
        }
        WireReader r = new WireReader(bytes);
        int code = r.i16("kind");
        if (code != kind.code()) {
            String other;
            try {
                other = Collective.Kind.ofCode(code).name();
            } catch (IllegalArgumentException e) {
                other = "unknown kind";
            }
            throw new WireFormatException(kind, rank, "its header says kind code " + code + " (" + other + "), expected "
                    + kind.code(), null);
        }
        int v = r.i16("version");
        if (v != version) {
            throw new WireFormatException(kind, rank, "layout version " + v + ", this library reads version " + version
                    + " (every rank must run the same jckpt)", null);
        }
        T message;
        try {
            message = reader.apply(r);
        } catch (WireReader.Malformed e) {
            throw new WireFormatException(kind, rank, e.getMessage(), null);
        } catch (IllegalArgumentException | NullPointerException e) { // a record's own checks
            throw new WireFormatException(kind, rank, "a field out of range: " + e.getMessage(), e);
        }
        if (r.remaining() != 0) {
            throw new WireFormatException(kind, rank, "wrong length: " + bytes.length + " bytes, " + r.remaining()
                    + " left after the last field", null);
        }
        return message;
    }

    /**
     * Gives this rank's message and receives every rank's (a collective: every rank calls it).
     *
     * @param collective the ranks' collective
     * @param mine       this rank's message
     * @param round      the checkpoint round the exchange belongs to, or {@link Collective#NO_ROUND}
     * @param timeout    bound of the wait
     * @return every rank's message, indexed by rank
     * @throws WireFormatException naming the rank whose message is malformed
     */
    public List<T> allgather(RankCollective collective, T mine, long round, Duration timeout) {
        return allgather(collective, Collective.of(kind, round), mine, timeout);
    }

    /**
     * As {@link #allgather(RankCollective, Object, long, Duration)} under a call the caller names (a
     * library step that makes its exchanges under its caller's kind, or a test's).
     *
     * @param collective the ranks' collective
     * @param call       the collective call (compared across ranks)
     * @param mine       this rank's message
     * @param timeout    bound of the wait
     * @return every rank's message, indexed by rank
     * @throws WireFormatException naming the rank whose message is malformed
     */
    public List<T> allgather(RankCollective collective, Collective call, T mine, Duration timeout) {
        byte[][] all = collective.allgather(call, encode(mine), timeout);
        List<T> out = new ArrayList<>(all.length);
        for (int r = 0; r < all.length; r++) {
            out.add(decode(r, all[r]));
        }
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return kind.name() + " v" + version + " (" + type.getSimpleName() + ")";
    }
}
