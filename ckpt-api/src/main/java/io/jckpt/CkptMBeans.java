package io.jckpt;

import io.jckpt.spi.RankContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * Registers and unregisters the {@link CkptMXBean} of the checkpointer the facade holds. JMX is an
 * observer: a registration that fails (a name still taken by a checkpointer of an abandoned world in a
 * class loader of its own) is logged and never fails the program.
 */
final class CkptMBeans {

    private static final Logger LOG = LoggerFactory.getLogger(CkptMBeans.class);

    private CkptMBeans() {
    }

    /**
     * @param context the rank
     * @return the MXBean's name for that rank
     */
    static ObjectName nameOf(RankContext context) {
        try {
            // job ids are [A-Za-z0-9._-]: no quoting needed
            return new ObjectName("io.jckpt:type=Checkpointer,job=" + context.jobId() + ",rank=" + context.rank());
        } catch (JMException e) {
            throw new IllegalStateException("rank " + context.rank() + ": no JMX name for job " + context.jobId(), e);
        }
    }

    /**
     * Registers the bean of a checkpointer just opened, replacing one left by an earlier world.
     *
     * @param context the rank
     * @param stats   the checkpointer's stats
     * @return the registered name, or null when registration failed (logged)
     */
    static ObjectName register(RankContext context, Supplier<CkptStats> stats) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = nameOf(context);
        try {
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(new Bean(context, stats), name);
            return name;
        } catch (JMException | RuntimeException e) {
            LOG.warn("rank {}: checkpointer not registered with JMX as {}: {}", context.rank(), name, e.toString());
            return null;
        }
    }

    /**
     * Registers the bean of a checkpointer just opened on a short-lived thread of its own
     * ({@code jckpt-jmx-r<rank>}): a JVM's first use of the platform MBean server costs 0.1-0.3 s of
     * class loading and set-up, which must not delay open() (a recovery's critical path, four fresh JVMs
     * at once after a relaunch). The thread ends once the bean is registered.
     *
     * @param context the rank
     * @param stats   the checkpointer's stats
     * @return the registration, to {@link Registration#close()} when the checkpointer closes
     */
    static Registration registerInBackground(RankContext context, Supplier<CkptStats> stats) {
        Registration registration = new Registration();
        Thread thread = new Thread(() -> registration.complete(context, stats), "jckpt-jmx-r" + context.rank());
        thread.setDaemon(true);
        thread.start();
        return registration;
    }

    /** A bean being registered, or registered: closing it unregisters it, or keeps it from being registered. */
    static final class Registration {
        private ObjectName name;
        private boolean closed;

        private void complete(RankContext context, Supplier<CkptStats> stats) {
            ManagementFactory.getPlatformMBeanServer(); // the slow part, outside the lock
            synchronized (this) {
                if (!closed) {
                    name = register(context, stats);
                }
            }
        }

        /** Unregisters the bean, or makes the pending registration a no-op. Never blocks on the set-up. */
        synchronized void close() {
            closed = true;
            unregister(name);
            name = null;
        }
    }

    /** @param name a name from {@link #register}, or null */
    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (JMException | RuntimeException e) {
            LOG.debug("{} not unregistered: {}", name, e.toString());
        }
    }

    /** The bean: every getter reads a fresh snapshot. */
    private record Bean(RankContext context, Supplier<CkptStats> stats) implements CkptMXBean {
        @Override public String getJobId() { return context.jobId(); }
        @Override public int getRank() { return context.rank(); }
        @Override public int getEpoch() { return context.epoch(); }
        @Override public long getRound() { return stats.get().round(); }
        @Override public long getCheckpoints() { return stats.get().checkpoints(); }
        @Override public long getDiskCheckpoints() { return stats.get().diskCheckpoints(); }
        @Override public long getDiskCommits() { return stats.get().diskCommits(); }
        @Override public long getDiskFailures() { return stats.get().diskFailures(); }
        @Override public long getLastImageBytes() { return stats.get().lastImageBytes(); }
        @Override public long getLastBlockingNanos() { return stats.get().lastBlockingNanos(); }
        @Override public long getTotalBlockingNanos() { return stats.get().totalBlockingNanos(); }
        @Override public long getLastReplicationNanos() { return stats.get().lastReplicationNanos(); }
        @Override public long getLastFlushNanos() { return stats.get().lastFlushNanos(); }
        @Override public long getHereWaits() { return stats.get().hereWaits(); }
        @Override public long getRollbacks() { return stats.get().rollbacks(); }
        @Override public long getRecoveries() { return stats.get().recoveries(); }
        @Override public int getReplicas() { return stats.get().replicas(); }
        @Override public int getDiskRatio() { return stats.get().diskRatio(); }
        @Override public long getSlotCapacity() { return stats.get().slotCapacity(); }
        @Override public long getReconfigurations() { return stats.get().reconfigurations(); }
        @Override public int getHostLossesSurvived() { return stats.get().placement().hostLossesSurvived(); }
        @Override public String getPlacement() {
            CkptStats.Placement p = stats.get().placement();
            return p.hostLossesSurvived() < 0 ? "not known" : p.describe();
        }
        @Override public boolean isDegraded() { return stats.get().degraded(); }
        @Override public String getSummary() { return stats.get().toString(); }
    }
}
