package io.jckpt.runtime.rank;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.Supplier;

/**
 * Whether the program thread waits inside a communication call (MPJ Express, or a status exchange
 * through the launcher) using no CPU, and since when. The progress reporter samples it about once a
 * second and tells the launcher, which declares a deadlock when every rank of a world waits so: then
 * no rank can ever send what another waits for. A thread that computes, sleeps, waits elsewhere
 * (here(), its own locks) or returns from the call between two samples is never counted, so a slow
 * rank is never taken for a deadlock.
 *
 * <p>Sampling costs one thread-CPU-time read a second, and one stack walk when that time stood still
 * (the thread is blocked then, so the walk is cheap).
 */
final class CommunicationWait {
    private static volatile Thread program;

    /** A wait: since when (System.nanoTime()) and in which call, {@code "mpi.Intracomm.Allreduce from Main.main:42"}. */
    record Wait(long sinceNanos, String call) {
        long millis(long nowNanos) {
            return Math.max(1, (nowNanos - sinceNanos) / 1_000_000L);
        }
    }

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long threadId = -1;
    private long lastCpuNanos = -1;
    private long lastSampleNanos;
    private Wait wait;

    /** The thread running the program's main in the current world (RankMain, at each world's start). */
    static void programThread(Thread thread) {
        program = thread;
    }

    /** @return the program thread's wait now, or null (no program thread, or CPU time not measurable) */
    Wait sample(long nowNanos) {
        Thread t = program;
        if (t == null || !t.isAlive() || !threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
            wait = null;
            threadId = -1;
            return null;
        }
        long cpu = threads.getThreadCpuTime(t.getId());
        return observe(t.getId(), nowNanos, cpu, t::getStackTrace);
    }

    /**
     * One sample: the thread's CPU time against the previous sample's.
     *
     * @param cpuNanos the thread's CPU time (-1 when it ended)
     * @param stack    its stack, read only when its CPU time stood still since the previous sample
     * @return the wait it is in, or null
     */
    Wait observe(long id, long nowNanos, long cpuNanos, Supplier<StackTraceElement[]> stack) {
        boolean still = id == threadId && cpuNanos >= 0 && cpuNanos == lastCpuNanos;
        long previous = lastSampleNanos;
        threadId = id;
        lastCpuNanos = cpuNanos;
        lastSampleNanos = nowNanos;
        if (!still) {
            wait = null; // it ran between the samples: whatever it waits for now began after the previous one
            return null;
        }
        if (wait == null) {
            String call = call(stack.get());
            // it used no CPU since the previous sample: the wait began before it
            wait = call == null ? null : new Wait(previous, call);
        }
        return wait;
    }

    /**
     * @return the outermost communication frame of {@code stack} and the program's frame that called it,
     *         or null when the thread is not inside a communication call
     */
    static String call(StackTraceElement[] stack) {
        int outer = -1;
        for (int i = 0; i < stack.length; i++) {
            if (communication(stack[i])) {
                outer = i;
            } else if (outer >= 0 && !stack[i].getClassName().startsWith("java.")
                    && !stack[i].getClassName().startsWith("jdk.")) {
                break;
            }
        }
        if (outer < 0) {
            return null;
        }
        StackTraceElement c = stack[outer];
        String name = c.getClassName() + "." + c.getMethodName();
        if (library(c.getClassName())) {
            name = "a status exchange";
            for (int i = outer + 1; i < stack.length; i++) {
                if (stack[i].getClassName().equals("io.jckpt.Ckpt")) {
                    name = "the status exchange of Ckpt." + stack[i].getMethodName();
                }
            }
        }
        for (int i = outer + 1; i < stack.length; i++) {
            StackTraceElement caller = stack[i];
            if (!library(caller.getClassName()) && !caller.getClassName().startsWith("java.")
                    && !caller.getClassName().startsWith("jdk.")) {
                String simple = caller.getClassName().substring(caller.getClassName().lastIndexOf('.') + 1);
                return name + " from " + simple + "." + caller.getMethodName()
                        + (caller.getLineNumber() > 0 ? ":" + caller.getLineNumber() : "");
            }
        }
        return name;
    }

    /** The library's own packages (a program of the project's own, as the chaos programs, is not). */
    private static final java.util.Set<String> LIBRARY = java.util.Set.of("io.jckpt", "io.jckpt.data", "io.jckpt.disk",
            "io.jckpt.image", "io.jckpt.imem", "io.jckpt.policy", "io.jckpt.policy.interval", "io.jckpt.spi", "io.jckpt.wire",
            "io.jckpt.codes",
            "io.jckpt.runtime.control", "io.jckpt.runtime.rank", "io.jckpt.runtime.multicore");

    private static boolean library(String className) {
        int dot = className.lastIndexOf('.');
        return dot > 0 && LIBRARY.contains(className.substring(0, dot));
    }

    private static boolean communication(StackTraceElement e) {
        String c = e.getClassName();
        return c.startsWith("mpi.") || c.startsWith("mpjdev.") || c.startsWith("xdev.") || c.startsWith("mpjbuf.")
                || (c.equals(RankControl.class.getName()) && e.getMethodName().equals("allgather"));
    }
}
