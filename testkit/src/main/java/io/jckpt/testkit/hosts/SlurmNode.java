package io.jckpt.testkit.hosts;

import io.jckpt.testkit.hosts.TestHosts.Cgroups;
import io.jckpt.testkit.hosts.TestHosts.Result;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One node of a {@link TestSlurm} cluster (the controller or a compute node): a mount + PID + UTS namespace set
 * in its own cgroup, with its own host name, /dev/shm, /run and /tmp. Its init is PID 1 inside; its standard
 * input is a pipe from the JVM, whose end (the JVM's death included) ends the node.
 */
public final class SlurmNode {
    private final TestSlurm cluster;
    private final String name;
    private final boolean isController;
    private Process unshare;
    private long initPid = -1;

    SlurmNode(TestSlurm cluster, String name, boolean isController) {
        this.cluster = cluster;
        this.name = name;
        this.isController = isController;
    }

    /** Its host name and SLURM node name ({@code ctl}, {@code node1}, ...). */
    public String name() {
        return name;
    }

    /** Its cgroup v2 directory (exists while it is up). */
    public Path cgroup() {
        return cluster.cgroup(name);
    }

    /** Whether it is up (started and not lost). */
    public synchronized boolean isUp() {
        return initPid > 0;
    }

    /** The PID of its init in the machine's PID namespace. */
    public synchronized long initPid() {
        if (initPid <= 0) {
            throw new IllegalStateException(this + " is down");
        }
        return initPid;
    }

    /** The PIDs (machine namespace) of every process in its cgroup: init, daemons, job steps. */
    public Set<Long> processes() {
        return Cgroups.processes(cgroup());
    }

    /** Its /dev/shm seen from outside (through its init's root); valid while it is up. */
    public Path shm() {
        return Path.of("/proc", Long.toString(initPid()), "root", "dev", "shm");
    }

    /** Runs {@code sh -c command} inside the node with nsenter (its cgroup, namespaces), bounded by {@code timeout}. */
    public Result run(Duration timeout, String command) throws IOException {
        return TestHosts.Exec.run(List.of("sh", "-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$2\" -t \"$3\" -m -u -p"
                + " -- sh -c \"$4\"", "nsenter-" + name, cgroup().toString(), TestHosts.Tools.get().nsenter,
                Long.toString(initPid()), command), timeout);
    }

    @Override
    public String toString() {
        return "SLURM node " + name + " of " + cluster.name();
    }

    synchronized void start() throws IOException {
        Files.createDirectories(cgroup());
        Path log = cluster.runDirectory().resolve("log/init-" + name + ".out");
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$2\" --mount"
                + " --propagation private --pid --uts --fork --mount-proc --kill-child -- /bin/bash \"$3\" \"$4\" \"$5\"",
                "start-" + name, cgroup().toString(), TestHosts.Tools.get().unshare,
                cluster.runDirectory().resolve("node-init").toString(), name, isController ? "controller" : "compute")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().keySet().removeIf(k -> k.startsWith("SLURM_"));
        unshare = pb.start(); // its standard input stays a pipe from this JVM: end of file ends the node
    }

    /** Waits for unshare's child (the init) to exist and records its PID. */
    void awaitInit(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            synchronized (this) {
                List<ProcessHandle> children = unshare.toHandle().children().toList();
                if (children.size() == 1) {
                    initPid = children.get(0).pid();
                    return;
                }
                if (!unshare.isAlive()) {
                    throw new IOException(this + " exited at start (exit " + unshare.exitValue() + ")\n" + cluster.logs());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(this + ": no init after " + timeout.toMillis() + " ms\n" + cluster.logs());
            }
            TestSlurm.pause(2);
        }
    }

    synchronized void killInit() {
        if (initPid > 0) {
            ProcessHandle.of(initPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Kills its init (the kernel kills its namespace), sweeps and removes its cgroup. */
    synchronized void stop() throws IOException {
        killInit();
        initPid = -1;
        if (unshare != null) {
            try (OutputStream stdin = unshare.getOutputStream()) {
                // what the JVM's death does: the init exits on end of file if it still lives
            } catch (IOException ignored) {
                // the pipe is broken: the init is gone
            }
            try {
                if (!unshare.waitFor(10, TimeUnit.SECONDS)) {
                    unshare.destroyForcibly();
                    unshare.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while stopping " + this, e);
            }
            unshare = null;
        }
        Cgroups.killAndRemove(cgroup(), Duration.ofSeconds(10));
    }
}
