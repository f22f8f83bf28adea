package io.jckpt.runtime.control;

import io.jckpt.spi.Collective;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encoding of {@link ControlProtocol#EXCHANGE}, {@link ControlProtocol#EXCHANGE_RESULT} and
 * {@link ControlProtocol#EXCHANGE_FAILED} payloads.
 */
public final class ExchangeFrames {
    private ExchangeFrames() {
    }

    /**
     * One rank's contribution to exchange {@code sequence} of world {@code epoch}.
     *
     * @param epoch         the world of the calling thread
     * @param sequence      the exchange's position in that world's sequence (from 1)
     * @param call          which collective the rank called
     * @param timeoutMillis how long the rank waits: the launcher fails the exchange on every rank when
     *                      it is not complete that long after its first contribution
     * @param bytes         the rank's bytes
     */
    public record Contribution(int epoch, long sequence, Collective call, long timeoutMillis, byte[] bytes) {
        public byte[] encode() {
            return write(out -> {
                out.writeInt(epoch);
                out.writeLong(sequence);
                out.write(call.encode());
                out.writeLong(timeoutMillis);
                out.writeInt(bytes.length);
                out.write(bytes);
            });
        }

        public static Contribution decode(byte[] payload) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
            int epoch = in.readInt();
            long sequence = in.readLong();
            byte[] call = new byte[Collective.ENCODED_LENGTH];
            in.readFully(call);
            long timeoutMillis = in.readLong();
            try {
                return new Contribution(epoch, sequence, Collective.decode(call), timeoutMillis,
                        readBytes(in, ControlProtocol.MAX_EXCHANGE_BYTES));
            } catch (IllegalArgumentException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
    }

    /**
     * An exchange that failed on every rank.
     *
     * @param epoch    its world
     * @param sequence its position in the world's sequence
     * @param mismatch true when ranks called different collectives, false when some did not arrive
     * @param missing  the ranks that had not contributed (empty for a mismatch)
     * @param message  what happened, for a person: the ranks and their calls
     */
    public record Failed(int epoch, long sequence, boolean mismatch, List<Integer> missing, String message) {
        public byte[] encode() {
            return write(out -> {
                out.writeInt(epoch);
                out.writeLong(sequence);
                out.writeBoolean(mismatch);
                out.writeInt(missing.size());
                for (int r : missing) {
                    out.writeInt(r);
                }
                out.writeUTF(message);
            });
        }

        public static Failed decode(byte[] payload) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
            int epoch = in.readInt();
            long sequence = in.readLong();
            boolean mismatch = in.readBoolean();
            int n = in.readInt();
            if (n < 0 || n > 1 << 16) {
                throw new IOException("failed exchange naming " + n + " missing ranks");
            }
            List<Integer> missing = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                missing.add(in.readInt());
            }
            return new Failed(epoch, sequence, mismatch, List.copyOf(missing), in.readUTF());
        }
    }

    /**
     * Everyone's contributions, indexed by rank. On the wire a run of equal contributions of
     * consecutive ranks is sent once ({@code int -count, int length, bytes}; a single one is
     * {@code int length, bytes}), so an exchange where the ranks agree (a ctrl, a close, a size
     * agreement that rank 0's decision alone breaks) costs each rank O(1) bytes instead of O(n).
     * Decoding gives every rank its own array, as before.
     */
    public record Result(int epoch, long sequence, byte[][] all) {
        public byte[] encode() {
            return write(out -> {
                out.writeInt(epoch);
                out.writeLong(sequence);
                out.writeInt(all.length);
                for (int r = 0; r < all.length; ) {
                    int run = 1;
                    while (r + run < all.length && java.util.Arrays.equals(all[r], all[r + run])) {
                        run++;
                    }
                    if (run > 1) {
                        out.writeInt(-run);
                    }
                    out.writeInt(all[r].length);
                    out.write(all[r]);
                    r += run;
                }
            });
        }

        public static Result decode(byte[] payload) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
            int epoch = in.readInt();
            long sequence = in.readLong();
            int n = in.readInt();
            if (n < 1 || n > 1 << 16) {
                throw new IOException("exchange result for " + n + " ranks");
            }
            byte[][] all = new byte[n][];
            for (int r = 0; r < n; ) {
                int head = in.readInt();
                int run = 1;
                if (head < 0) {
                    run = -head;
                    if (run < 2 || run > n - r) {
                        throw new IOException("exchange result of " + n + " ranks repeats slot " + r + " "
                                + run + " times");
                    }
                    head = in.readInt();
                }
                byte[] bytes = readBytes(head, in, ControlProtocol.MAX_EXCHANGE_BYTES);
                all[r] = bytes;
                for (int k = 1; k < run; k++) {
                    all[r + k] = bytes.clone(); // each slot its own array, as a rank may keep or change one
                }
                r += run;
            }
            if (in.available() > 0) {
                throw new IOException("exchange result of " + n + " ranks has " + in.available() + " bytes too many");
            }
            return new Result(epoch, sequence, all);
        }
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer writer) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            writer.write(new DataOutputStream(bytes));
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] readBytes(DataInputStream in, int max) throws IOException {
        return readBytes(in.readInt(), in, max);
    }

    private static byte[] readBytes(int length, DataInputStream in, int max) throws IOException {
        if (length < 0 || length > max) {
            throw new IOException("exchange contribution of " + length + " bytes (at most " + max + ")");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
