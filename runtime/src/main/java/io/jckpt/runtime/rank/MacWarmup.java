package io.jckpt.runtime.rank;

import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageMac;
import io.jckpt.spi.AgentThreads;
import java.nio.ByteBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

/**
 * Readies the checkpoints' MAC (HMAC-SHA256) in a fresh rank JVM while it connects and starts its
 * program, off the path of its first open: the JDK's crypto provider is loaded and the SHA-256 loop
 * compiled (its SHA-NI intrinsic is used from compiled code only), so that a replacement rank's first
 * verification of the copy it receives does not run interpreted. A one-shot agent
 * ({@code jckpt-mac-warmup-<rank>}): a few MiB of MAC, then it ends itself. A warm standby needs none:
 * its rehearsal checkpoints.
 */
final class MacWarmup implements Agent {
    private static final int BYTES = 1 << 20;
    private static final int PASSES = 8;
    private final int rank;

    private MacWarmup(int rank) {
        this.rank = rank;
    }

    /** Starts the warm-up of rank {@code rank}'s JVM; returns at once. */
    static void start(int rank) {
        AgentThreads.start(new MacWarmup(rank));
    }

    @Override
    public String roleName() {
        return "jckpt-mac-warmup-" + rank;
    }

    @Override
    public int doWork() {
        ImageMac mac = ImageKey.derive(ImageKey.newJobKey()).newMac();
        ByteBuffer bytes = ByteBuffer.allocateDirect(BYTES);
        for (int i = 0; i < PASSES; i++) {
            mac.begin(BYTES);
            mac.update(bytes.duplicate().limit(BYTES - ImageMac.TAG_LENGTH));
            mac.tag();
        }
        throw new AgentTerminationException(); // done: one pass of work, then the thread ends
    }
}
