package io.jckpt.runtime.control;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Payload of {@link ControlProtocol#RANK_EXIT}: how a rank's program of one epoch (world) ended. */
public record RankExit(int status, String reason, int epoch) {
    private static final int MAX_REASON = 4000;

    /** int status, UTF reason (cut to a few thousand characters), int epoch. */
    public byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(status);
            out.writeUTF(reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
            out.writeInt(epoch);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RankExit decode(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        return new RankExit(in.readInt(), in.readUTF(), in.readInt());
    }
}
