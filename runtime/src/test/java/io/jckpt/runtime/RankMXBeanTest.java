package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.jckpt.CkptMXBean;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running rank's checkpointer read over JMX from another JVM (this test's), the way jconsole or a
 * JMX exporter attaches to it: the bean is there with the job's id and the rank, and its attributes
 * are the rank's live stats.
 */
class RankMXBeanTest {

    @Test
    void aRanksCheckpointerIsReadableFromAnotherJvm(@TempDir Path tmp) throws Exception {
        Path stop = tmp.resolve("stop");
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--on-failure", "respawn", "-cp",
                LaunchedJob.testClasses().toString(), "io.jckpt.runtime.programs.StoreUntil", stop.toString())) {
            job.awaitLines("checkpointed", 2, 120_000);
            long[] pids = job.rankPids();
            assertEquals(2, pids.length, job.output());
            for (int rank = 0; rank < 2; rank++) {
                VirtualMachine vm = VirtualMachine.attach(Long.toString(pids[rank]));
                try (JMXConnector connector = JMXConnectorFactory.connect(
                        new JMXServiceURL(vm.startLocalManagementAgent()))) {
                    MBeanServerConnection server = connector.getMBeanServerConnection();
                    Set<ObjectName> names = server.queryNames(new ObjectName("io.jckpt:type=Checkpointer,*"), null);
                    ObjectName expected = new ObjectName("io.jckpt:type=Checkpointer,job=" + job.jobId() + ",rank=" + rank);
                    assertEquals(Set.of(expected), names, "rank " + rank + "'s beans");
                    CkptMXBean bean = JMX.newMXBeanProxy(server, expected, CkptMXBean.class);
                    assertEquals(rank, bean.getRank());
                    assertEquals(job.jobId(), bean.getJobId());
                    assertEquals(1, bean.getCheckpoints(), "StoreUntil takes one checkpoint");
                    assertEquals(1, bean.getRound());
                    assertEquals(1, bean.getReplicas());
                    assertTrue(bean.getLastImageBytes() >= 8 * 1024, "a long[1024]: " + bean.getLastImageBytes());
                    assertTrue(bean.getSummary().contains("round 1, 1 taken"), bean.getSummary());
                    // every rank on this host: the copies are in other ranks' memory but no host loss is survived
                    assertEquals(0, bean.getHostLossesSurvived(), bean.getPlacement());
                    assertTrue(bean.getPlacement().startsWith("on ranks "), bean.getPlacement());
                } finally {
                    vm.detach();
                }
            }
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(120_000), job.output());
        }
    }
}
