package io.jckpt.runtime.control;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Encoding of {@link ControlProtocol#EXCHANGE} and {@link ControlProtocol#EXCHANGE_RESULT} payloads. */
public final class ExchangeFrames {
    private ExchangeFrames() {
    }

    /** One rank's contribution. */
    public record Contribution(int epoch, long sequence, byte[] bytes) {
        public byte[] encode() {
            return write(out -> {
                out.writeInt(epoch);
                out.writeLong(sequence);
                out.writeInt(bytes.length);
                out.write(bytes);
            });
        }

        public static Contribution decode(byte[] payload) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
            int epoch = in.readInt();
            long sequence = in.readLong();
            return new Contribution(epoch, sequence, readBytes(in, ControlProtocol.MAX_EXCHANGE_BYTES));
        }
    }

    /** Everyone's contributions, indexed by rank. */
    public record Result(int epoch, long sequence, byte[][] all) {
        public byte[] encode() {
            return write(out -> {
                out.writeInt(epoch);
                out.writeLong(sequence);
                out.writeInt(all.length);
                for (byte[] bytes : all) {
                    out.writeInt(bytes.length);
                    out.write(bytes);
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
            for (int i = 0; i < n; i++) {
                all[i] = readBytes(in, ControlProtocol.MAX_EXCHANGE_BYTES);
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
        int length = in.readInt();
        if (length < 0 || length > max) {
            throw new IOException("exchange contribution of " + length + " bytes (at most " + max + ")");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
