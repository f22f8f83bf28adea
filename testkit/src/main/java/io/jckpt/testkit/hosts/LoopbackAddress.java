package io.jckpt.testkit.hosts;

import java.io.IOException;
import java.nio.channels.FileLock;

/**
 * A loopback address of 127.0.0.2-254 held for as long as this is open, claimed with the same file locks
 * test hosts claim theirs: a test that binds to an address of its own never gets one whose packets another
 * run's test host rules (a partition, a lost node) drop.
 */
public final class LoopbackAddress implements AutoCloseable {
    private final FileLock lock;
    private final String address;

    private LoopbackAddress(FileLock lock, String address) {
        this.lock = lock;
        this.address = address;
    }

    /** Claims a free address; fails naming the lock directory when every one is held. */
    public static LoopbackAddress claim() throws IOException {
        FileLock l = TestHosts.claimAddress();
        return new LoopbackAddress(l, TestHosts.slotOf(l));
    }

    /** The address, e.g. {@code 127.0.0.7}. */
    public String address() {
        return address;
    }

    @Override
    public void close() throws IOException {
        TestHosts.release(lock);
    }
}
