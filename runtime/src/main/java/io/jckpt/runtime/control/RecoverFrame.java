package io.jckpt.runtime.control;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Payload of {@link ControlProtocol#RECOVER}. */
public record RecoverFrame(int epoch, String mpjConf, int[] failedRanks) {

    public byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(epoch);
            out.writeUTF(mpjConf);
            out.writeInt(failedRanks.length);
            for (int rank : failedRanks) {
                out.writeInt(rank);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RecoverFrame decode(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        int epoch = in.readInt();
        String conf = in.readUTF();
        int n = in.readInt();
        if (n < 0 || n > 1 << 16) {
            throw new IOException("recover frame names " + n + " failed ranks");
        }
        int[] failed = new int[n];
        for (int i = 0; i < n; i++) {
            failed[i] = in.readInt();
        }
        return new RecoverFrame(epoch, conf, failed);
    }
}
