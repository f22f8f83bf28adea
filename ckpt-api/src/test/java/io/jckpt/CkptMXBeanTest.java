package io.jckpt;

import io.jckpt.spi.RankContext;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.*;

/** The facade's MXBean through the platform MBean server, and the stats' multi-line form. */
class CkptMXBeanTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void theBeanReadsFreshStatsAndIsReplacedByTheNextWorldsAndUnregistered() throws Exception {
        RankContext world0 = RankContext.builder().rank(1).size(2).jobId("jmx-job.1").build();
        ObjectName name = new ObjectName("io.jckpt:type=Checkpointer,job=jmx-job.1,rank=1");
        assertEquals(name, CkptMBeans.nameOf(world0));
        assertFalse(server.isRegistered(name));
        InMemoryCheckpointer c = new InMemoryCheckpointer(CkptOptions.builder().build(), world0);
        assertEquals(name, CkptMBeans.register(world0, c::stats));
        CkptMXBean bean = JMX.newMXBeanProxy(server, name, CkptMXBean.class);
        assertEquals(0, bean.getCheckpoints());
        c.register("u", new double[1000]);
        c.here();
        c.here();
        assertEquals(2, bean.getCheckpoints(), "every read is a new snapshot");
        assertEquals(2, bean.getRound());
        assertEquals(1, bean.getRank());
        assertEquals("jmx-job.1", bean.getJobId());
        assertTrue(bean.getLastImageBytes() >= 8000, "image of a double[1000]: " + bean.getLastImageBytes());
        assertEquals(c.stats().toString(), bean.getSummary());
        assertEquals(2L, server.getAttribute(name, "Checkpoints"), "readable by name, as jconsole does");

        RankContext world1 = RankContext.builder().rank(1).size(2).jobId("jmx-job.1").epoch(1).build();
        assertEquals(name, CkptMBeans.register(world1, () -> CkptStats.EMPTY), "a recovery's world replaces the bean");
        assertEquals(1, bean.getEpoch());
        assertEquals(0, bean.getCheckpoints());
        CkptMBeans.unregister(name);
        assertFalse(server.isRegistered(name));
        c.close();
    }

    @Test
    void statsPrintOnSeveralLinesWithUnits() {
        CkptStats s = new CkptStats(12, 12, 3, 1, 0, 4L << 20, 1_500_000, 20_000_000, 2_000_000, 30_000_000, 1, 2,
                400_000, 1, 1, 10, 5L << 20, 0, false, new CkptStats.HereTimings(0, 1_200_000, 300_000, 1_500_000),
                new CkptStats.RecoveryTimings(1_000_000, 2_000_000, 100_000, 3_000_000, 0, 4L << 20, 0, 0, 12_000_000),
                CkptStats.Placement.of((r, d) -> (r + 2 * d) % 4, 4, 1, 1, r -> "127.0.0." + (2 + r / 2)));
        String text = s.toString();
        String[] lines = text.split("\n");
        assertEquals(6, lines.length, text);
        assertTrue(lines[0].contains("round 12, 12 taken, image 4.0 MiB"), lines[0]);
        assertTrue(lines[1].contains("last 1.500 ms (wait 0.000 ms, write 1.200 ms, hand-off 0.300 ms), total 20.0 ms"), lines[1]);
        assertTrue(lines[2].contains("m = 1, slot 5.0 MiB"), lines[2]);
        assertTrue(lines[3].contains("every 10 rounds, 3 written, 1 committed, 0 failed, last flush 30.0 ms"), lines[3]);
        assertTrue(lines[4].contains("recoveries 1: last 12.0 ms") && lines[4].contains("received 4.0 MiB"), lines[4]);
        assertEquals("  copies: on ranks 3 (127.0.0.3); this rank on 127.0.0.2; the job survives the loss of any 1 host"
                + " from memory", lines[5]);
        assertTrue(CkptStats.EMPTY.toString().contains("m = unknown"), CkptStats.EMPTY.toString());
        assertFalse(CkptStats.EMPTY.toString().contains("copies"), CkptStats.EMPTY.toString());
    }
}
