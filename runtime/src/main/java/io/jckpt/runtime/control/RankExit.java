package io.jckpt.runtime.control;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Payload of {@link ControlProtocol#RANK_EXIT}: how a rank's program of one epoch (world) ended;
 * {@code detail} is the stack trace of what it threw ("" when it completed).
 */
public record RankExit(int status, String reason, int epoch, String detail) {
    private static final int MAX_REASON = 4000;
    private static final int MAX_DETAIL = 12_000;

    /** A report without a stack trace. */
    public RankExit(int status, String reason, int epoch) {
        this(status, reason, epoch, "");
    }

    /** int status, UTF reason (cut to a few thousand characters), int epoch, UTF detail (cut too). */
    public byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(status);
            out.writeUTF(reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
            out.writeInt(epoch);
            out.writeUTF(detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) + "\n\t..." : detail);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RankExit decode(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        return new RankExit(in.readInt(), in.readUTF(), in.readInt(), in.readUTF());
    }
}
