package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The owner record of a job's node-local stores: its text form and whether its launcher still runs. */
class NodeLocalStoresTest {
    @Test
    void ownerRoundTripsAndMalformedOwnersAreNone() {
        NodeLocalStores.Owner self = NodeLocalStores.Owner.self(true);
        assertEquals(ProcessHandle.current().pid(), self.pid());
        assertEquals(Optional.of(self), NodeLocalStores.Owner.decode(self.encode()));
        assertEquals(Optional.empty(), NodeLocalStores.Owner.decode(""));
        assertEquals(Optional.empty(), NodeLocalStores.Owner.decode("pid=abc\nstarted=1\nkeep=false\n"));
        assertEquals(Optional.empty(), NodeLocalStores.Owner.decode("pid=12\nstarted=1\n"), "keep is required");
        assertEquals(Optional.of(new NodeLocalStores.Owner(12, 5, false)),
                NodeLocalStores.Owner.decode("pid=12\nstarted=5\nkeep=false\nfuture=field\n"));
    }

    @Test
    void aLauncherIsAliveOnlyWithItsPidAndItsStartTime() throws Exception {
        NodeLocalStores.Owner self = NodeLocalStores.Owner.self(false);
        assertTrue(self.startMillis() > 0);
        assertTrue(self.alive());
        // the same pid, started an hour earlier: the pid was reused, the launcher is gone
        assertFalse(new NodeLocalStores.Owner(self.pid(), self.startMillis() - 3_600_000, false).alive());
        Process ended = new ProcessBuilder("true").start();
        assertTrue(ended.waitFor(10, TimeUnit.SECONDS));
        assertFalse(new NodeLocalStores.Owner(ended.pid(), self.startMillis(), false).alive());
    }
}
