package io.jckpt.runtime.control;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Payload of {@link ControlProtocol#RECOVER}: the new world's epoch and MPJ configuration, the failed
 * ranks, and how long before the frame was sent the launcher detected the failure (an age, not a time:
 * the ranks' clocks need not agree with the launcher's), from which a rank counts its restart.
 *
 * @param epoch             the new world's epoch
 * @param mpjConf           its MPJ configuration
 * @param failedRanks       the ranks that failed
 * @param failureAgeMicros  microseconds between the launcher's detection of the failure and the frame's
 *                          sending (&gt;= 0)
 */
public record RecoverFrame(int epoch, String mpjConf, int[] failedRanks, long failureAgeMicros) {

    /** Checks the age. */
    public RecoverFrame {
        if (failureAgeMicros < 0) {
            throw new IllegalArgumentException("failure age must be >= 0 µs, got " + failureAgeMicros);
        }
    }

    /**
     * The same frame with the failure's age at {@code nowNanos}, for a frame sent some time after it was
     * built (the replacements are started first).
     *
     * @param detectedNanos when the launcher detected the failure ({@link System#nanoTime()})
     * @param nowNanos      now
     * @return the frame, aged
     */
    public RecoverFrame agedAt(long detectedNanos, long nowNanos) {
        return new RecoverFrame(epoch, mpjConf, failedRanks, ageMicros(detectedNanos, nowNanos));
    }

    /**
     * A failure's age as the launcher sends it, in a frame or a re-spawned rank's environment.
     *
     * @param detectedNanos when the launcher detected the failure ({@link System#nanoTime()})
     * @param nowNanos      now
     * @return the microseconds between them, &gt;= 0
     */
    public static long ageMicros(long detectedNanos, long nowNanos) {
        return Math.max(0, (nowNanos - detectedNanos) / 1000);
    }

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
            out.writeLong(failureAgeMicros);
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
        long age = in.readLong();
        if (age < 0) {
            throw new IOException("recover frame gives a negative failure age: " + age + " µs");
        }
        return new RecoverFrame(epoch, conf, failed, age);
    }
}
