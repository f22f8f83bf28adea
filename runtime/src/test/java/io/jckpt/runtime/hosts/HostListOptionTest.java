package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --host h1,h2:2} and {@code --spare-hosts}: slots, repeats, errors naming the option. */
class HostListOptionTest {
    @Test
    void slotsAndRepeats() throws Exception {
        HostList hosts = HostListOption.parse("--host", "h1,h2:2, h3 ,h1:3");
        assertEquals(List.of(new Host("h1", 4), new Host("h2", 2), new Host("h3", 1)), hosts.hosts());
        assertEquals("--host", hosts.source());
        assertEquals(7, hosts.totalSlots());
        assertEquals(List.of(new Host("10.0.0.7", 1)), HostListOption.parse("-H", "10.0.0.7").hosts());
    }

    @Test
    void errorsNameTheOptionAndTheEntry() {
        assertEquals("--host needs a list of hosts such as h1,h2:2",
                assertThrows(UsageException.class, () -> HostListOption.parse("--host", " ")).getMessage());
        assertEquals("--host 'a,,b': empty host entry",
                assertThrows(UsageException.class, () -> HostListOption.parse("--host", "a,,b")).getMessage());
        assertEquals("--host 'a,b:0': 'b:0': slots must be at least 1, got 0",
                assertThrows(UsageException.class, () -> HostListOption.parse("--host", "a,b:0")).getMessage());
        assertEquals("--spare-hosts 'a:x': 'a:x': slots must be a whole number, got 'x'",
                assertThrows(UsageException.class, () -> HostListOption.parse("--spare-hosts", "a:x")).getMessage());
        assertTrue(assertThrows(UsageException.class, () -> HostListOption.parse("--host", "a,:2")).getMessage()
                .startsWith("--host 'a,:2': bad host name ''"));
        assertTrue(assertThrows(UsageException.class, () -> HostListOption.parse("--host", "a b")).getMessage()
                .startsWith("--host 'a b': bad host name 'a b'"));
    }
}
