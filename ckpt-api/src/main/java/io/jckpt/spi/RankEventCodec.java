package io.jckpt.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The binary form of a {@link RankEvent}, the payload of the rank event control frame: a kind byte, then
 * the record's components in order (long/int/double big-endian, strings as modified UTF-8). Decoding
 * checks the kind, the length and the values: a bad frame is an {@link IOException} naming it, never
 * another event.
 */
public final class RankEventCodec {
    /** A {@link RankEvent.Text} longer than this is cut (a frame's UTF string holds at most 64 KiB). */
    public static final int MAX_TEXT_CHARS = 16_000;

    static final byte TEXT = 1;
    static final byte DISK_COMMITTED = 2;
    static final byte RESTORED = 3;
    static final byte RESTARTED = 4;
    static final byte OPENED = 5;
    static final byte TOTALS = 6;
    static final byte SETTINGS = 7;

    private RankEventCodec() {
    }

    /**
     * @param event the event
     * @return its frame payload
     */
    public static byte[] encode(RankEvent event) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            if (event instanceof RankEvent.Text t) {
                out.writeByte(TEXT);
                out.writeUTF(cut(t.message()));
            } else if (event instanceof RankEvent.Settings s) {
                out.writeByte(SETTINGS);
                out.writeUTF(cut(s.summary()));
            } else if (event instanceof RankEvent.DiskCommitted d) {
                out.writeByte(DISK_COMMITTED);
                out.writeLong(d.round());
            } else if (event instanceof RankEvent.Restored r) {
                out.writeByte(RESTORED);
                out.writeLong(r.round());
                out.writeUTF(r.source());
                out.writeUTF(cut(r.how()));
                out.writeLong(r.step());
            } else if (event instanceof RankEvent.Restarted r) {
                out.writeByte(RESTARTED);
                out.writeUTF(cut(r.reason()));
            } else if (event instanceof RankEvent.Opened o) {
                out.writeByte(OPENED);
                out.writeInt(o.epoch());
                out.writeLong(o.openNanos());
            } else if (event instanceof RankEvent.Totals t) {
                out.writeByte(TOTALS);
                out.writeLong(t.checkpoints());
                out.writeLong(t.bytes());
                out.writeDouble(t.blockingMs());
                out.writeDouble(t.hereP50Ms());
                out.writeDouble(t.hereP99Ms());
                out.writeLong(t.diskWritten());
                out.writeLong(t.diskFailed());
            } else {
                throw new IllegalArgumentException("not a rank event: " + event); // the family is sealed
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * @param payload a rank event frame's payload
     * @return the event it holds
     * @throws IOException when it is empty, truncated, longer than its kind, of an unknown kind or holds a
     *                     value its record refuses; the message names the frame and its kind
     */
    public static RankEvent decode(byte[] payload) throws IOException {
        if (payload.length == 0) {
            throw new IOException("empty rank event frame");
        }
        byte kind = payload[0];
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload, 1, payload.length - 1));
        RankEvent event;
        try {
            event = switch (kind) {
                case TEXT -> new RankEvent.Text(in.readUTF());
                case SETTINGS -> new RankEvent.Settings(in.readUTF());
                case DISK_COMMITTED -> new RankEvent.DiskCommitted(in.readLong());
                case RESTORED -> new RankEvent.Restored(in.readLong(), in.readUTF(), in.readUTF(), in.readLong());
                case RESTARTED -> new RankEvent.Restarted(in.readUTF());
                case OPENED -> new RankEvent.Opened(in.readInt(), in.readLong());
                case TOTALS -> new RankEvent.Totals(in.readLong(), in.readLong(), in.readDouble(), in.readDouble(),
                        in.readDouble(), in.readLong(), in.readLong());
                default -> throw new IOException("rank event frame of unknown kind " + kind + " (" + payload.length
                        + " bytes)");
            };
        } catch (EOFException e) {
            throw new IOException("truncated rank event frame of kind " + kind + " (" + payload.length + " bytes)", e);
        } catch (IllegalArgumentException e) { // a value its record refuses
            throw new IOException("invalid rank event frame of kind " + kind + ": " + e.getMessage(), e);
        }
        if (in.available() > 0) {
            throw new IOException("rank event frame of kind " + kind + " has " + in.available()
                    + " bytes after its " + event.getClass().getSimpleName() + " event");
        }
        return event;
    }

    private static String cut(String text) {
        return text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text;
    }
}
