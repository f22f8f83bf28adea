package io.jckpt.testkit.hosts;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The files of a {@link TestSlurm} cluster: its {@code slurm.conf} (every daemon on 127.0.0.1 with the run's
 * ports, munge with the run's key and socket, timeouts short enough for tests), the init of its nodes and
 * the login script its clients run through (see docs/test-hosts.md, "A SLURM cluster").
 */
final class SlurmFiles {
    /** Ports of a block: controller at +0, node K at +K, srun's range from +{@value #SRUN_PORTS} to +99. */
    static final int SRUN_PORTS = 10;
    static final int BLOCK = 100;

    private final String name;
    private final Path runDir;
    private final Path runCgroup;
    private final List<String> nodes;
    private final int cpus;
    private final List<Path> binds;
    private final Map<String, String> tools;

    SlurmFiles(String name, Path runDir, Path runCgroup, List<String> nodes, int cpus, List<Path> binds,
               Map<String, String> tools) {
        this.name = name;
        this.runDir = runDir;
        this.runCgroup = runCgroup;
        this.nodes = List.copyOf(nodes);
        this.cpus = cpus;
        this.binds = List.copyOf(binds);
        this.tools = tools;
    }

    String slurmConf(int base) {
        StringBuilder c = new StringBuilder("# test SLURM cluster " + name + " (io.jckpt.testkit.hosts.TestSlurm)\n");
        List<String> settings = List.of("ClusterName=jckpt", "SlurmctldHost=ctl(127.0.0.1)", "SlurmctldPort=" + base,
                "SlurmUser=root", "SlurmdUser=root", "AuthType=auth/munge", "CredType=cred/munge",
                "AuthInfo=socket=" + runDir.resolve("munge/munge.socket"),
                // every daemon on 127.0.0.1 only (not 0.0.0.0), each with its own port
                "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny",
                "StateSaveLocation=" + runDir.resolve("state"), "SlurmdSpoolDir=" + runDir.resolve("spool") + "/%n",
                "SlurmctldLogFile=" + runDir.resolve("log/slurmctld.log"),
                "SlurmdLogFile=" + runDir.resolve("log") + "/slurmd-%n.log",
                "SlurmctldPidFile=/run/slurmctld.pid", "SlurmdPidFile=/run/slurmd.pid",
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
                "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core", "MpiDefault=none",
                "ReturnToService=2", "SlurmdTimeout=3", "MessageTimeout=2", "TCPTimeout=1", "KillWait=2",
                "InactiveLimit=0", "SlurmdParameters=config_overrides",
                "SrunPortRange=" + (base + SRUN_PORTS) + "-" + (base + BLOCK - 1));
        for (String s : settings) {
            c.append(s).append('\n');
        }
        for (int i = 0; i < nodes.size(); i++) {
            c.append("NodeName=").append(nodes.get(i)).append(" NodeAddr=127.0.0.1 Port=").append(base + i + 1)
                    .append(" CPUs=").append(cpus).append(" RealMemory=1000\n");
        }
        c.append("PartitionName=main Nodes=").append(String.join(",", nodes))
                .append(" Default=YES State=UP\n");
        return c.toString();
    }

    /**
     * PID 1 of a node ({@code node-init NAME ROLE}): own tmpfs on /dev/shm, /run and /tmp, the shared
     * directories bound back in, its host name, the run's hosts file over /etc/hosts; then munged and
     * slurmctld (controller) or slurmd, in the foreground as its children; then it waits for end of file on
     * its standard input (the JVM's pipe), reaping orphans meanwhile, and exits, which ends the namespace.
     */
    String initScript() {
        StringBuilder s = new StringBuilder("#!/bin/bash\n# init of a node of test SLURM cluster " + name + "\nset -e\n");
        List<Path> binds = this.binds;
        for (int i = 0; i < binds.size(); i++) {
            s.append("exec ").append(10 + i).append("< ").append(quote(binds.get(i))).append('\n');
        }
        s.append("mount -t tmpfs -o mode=1777 jckpt-shm /dev/shm\nmount -t tmpfs -o mode=755 jckpt-run /run\n")
                .append("mount -t tmpfs -o mode=1777 jckpt-tmp /tmp\n");
        for (int i = 0; i < binds.size(); i++) {
            s.append("mkdir -p ").append(quote(binds.get(i))).append('\n')
                    .append("mount --no-canonicalize --bind /proc/self/fd/").append(10 + i).append(' ')
                    .append(quote(binds.get(i))).append("\nexec ").append(10 + i).append("<&-\n");
        }
        String d = quote(runDir);
        s.append("hostname \"$1\"\nmount --bind ").append(d).append("/hosts /etc/hosts\n")
                .append("export SLURM_CONF=").append(d).append("/slurm.conf\n")
                .append("if [ \"$2\" = controller ]; then\n")
                .append("  rm -f ").append(d).append("/munge/munge.socket\n")
                .append("  ").append(tools.get("munged")).append(" -F -f --socket=").append(d).append("/munge/munge.socket")
                .append(" --key-file=").append(d).append("/munge/munge.key --pid-file=/run/munged.pid --seed-file=")
                .append(d).append("/munge/seed --log-file=").append(d).append("/log/munged.log </dev/null &\n")
                .append("  for i in $(seq 1000); do [ -S ").append(d).append("/munge/munge.socket ] && break; sleep 0.01; done\n")
                .append("  ").append(tools.get("slurmctld")).append(" -D -i </dev/null &\n")
                .append("else\n  ").append(tools.get("slurmd")).append(" -D </dev/null &\nfi\n")
                .append("set +e\necho \"node $1 ready\"\nwhile read -r _; do :; done\n");
        return s.toString();
    }

    String loginScript() {
        String d = quote(runDir);
        return "#!/bin/bash\n# test SLURM cluster " + name + ": login COMMAND ARGS... runs a client as from a login node\n"
                + "echo $$ > " + quote(runCgroup.resolve("login")) + "/cgroup.procs || { echo \"login: cluster "
                + name + " is gone\" >&2; exit 255; }\n"
                + "export SLURM_CONF=" + d + "/slurm.conf\n"
                + "exec " + TestHosts.Tools.get().unshare + " --uts --mount --propagation slave -- /bin/bash -c "
                + "'hostname login && mount --bind \"$0\"/hosts /etc/hosts && exec \"$@\"' " + d + " \"$@\"\n";
    }

    private static String quote(Path p) {
        return TestSlurm.quote(p);
    }
}
