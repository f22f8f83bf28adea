package io.jckpt.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import io.jckpt.testkit.hosts.LoopbackAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The two-JVM TCP baseline with its peer started elsewhere (as perf's section 12 starts it in a test host). */
class BaselinesTest {
    private static final int CAPACITY = 1 << 20;

    @Test
    void aPairConnectsToAPeerListeningOnTheAddressGivenOnly() throws Exception {
        // an address no test host of another run holds (their rules may drop its packets)
        try (LoopbackAddress own = LoopbackAddress.claim()) {
            connectsOnlyAt(own.address());
        }
    }

    private static void connectsOnlyAt(String address) throws Exception {
        Process peer = new ProcessBuilder(Baselines.TwoJvmPair.peerCommand(CAPACITY, address))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            int port = Baselines.TwoJvmPair.awaitPort(peer, 60_000);
            // bound to that address, not to the loopback address
            assertThrows(IOException.class, () -> Baselines.TwoJvmPair.connect(new InetSocketAddress("127.0.0.1", port),
                    CAPACITY).close());
            try (Baselines.TwoJvmPair pair = Baselines.TwoJvmPair.connect(new InetSocketAddress(address, port),
                    CAPACITY)) {
                // each transfer returns once the peer acked the last byte
                assertTrue(pair.transfer(CAPACITY) > 0);
                assertTrue(pair.transfer(400) > 0);
            }
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS), "the peer ends when its connection closes");
            assertEquals(0, peer.exitValue());
        } finally {
            peer.destroyForcibly();
        }
    }
}
