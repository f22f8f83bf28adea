package io.jckpt.testkit.hosts;

import java.io.IOException;
import java.nio.channels.FileLock;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A network partition made by {@link TestHosts#isolate}: a group of hosts cut off, both ways, from every
 * other host and from the launcher's host (every process outside the test hosts). Packets are dropped,
 * never reset (a reset makes MPJ niodev retry connect in a tight loop).
 *
 * <p>Address rules do not work on loopback (unbound sockets send from 127.0.0.1 wherever they run), so
 * the rules follow cgroups: on output, a packet from any process socket gets mark bit O and one from a
 * socket of the group also bit M; on input, a packet for a socket of the group is dropped when it has O
 * without M, and a packet with M is dropped when its receiving socket is outside the group. Packets sent
 * by no process socket (SYN-ACKs of half-open connections, the kernel's resets) carry no mark and pass:
 * they only answer packets the rules let through. Each partition has its own nftables table and its own
 * two mark bits (16 partitions at a time on the machine).
 */
public final class Partition implements AutoCloseable {
    private final TestHosts run;
    private final String table;
    private final List<TestHost> group;
    private final int other;
    private final int member;
    private final FileLock bits;
    private boolean healed;

    Partition(TestHosts run, String table, List<TestHost> group, int slot, FileLock bits) {
        this.run = run;
        this.table = table;
        this.group = List.copyOf(group);
        this.other = 1 << (2 * slot);
        this.member = 1 << (2 * slot + 1);
        this.bits = bits;
    }

    /** The hosts cut off from the rest. */
    public List<TestHost> group() {
        return group;
    }

    /** Its nftables table ({@code inet <run>_pK}). */
    public String table() {
        return table;
    }

    /** Whether it was healed. */
    public synchronized boolean isHealed() {
        return healed;
    }

    /** Removes the partition: connections blocked by it resume (their lost packets are retransmitted). */
    public synchronized void heal() throws IOException {
        if (healed) {
            return;
        }
        healed = true;
        try {
            run.deleteTable(table);
        } finally {
            run.removed(this);
            TestHosts.release(bits);
        }
    }

    /** Same as {@link #heal()}. */
    @Override
    public void close() throws IOException {
        heal();
    }

    @Override
    public String toString() {
        return "partition " + table + " of " + group.stream().map(TestHost::name).collect(Collectors.joining(","));
    }

    /** Loads (or reloads, after a host restarted with a new cgroup) the table in one transaction. */
    synchronized void apply() throws IOException {
        if (healed) {
            return;
        }
        // a host that is down has no cgroup to name; restart() re-applies the partition for its new one
        List<TestHost> members = group.stream().filter(h -> java.nio.file.Files.isDirectory(h.cgroup()))
                .collect(Collectors.toList());
        String o = hex(other);
        String m = hex(member);
        String om = hex(other | member);
        StringBuilder s = new StringBuilder();
        s.append("table inet ").append(table).append(" {}\ndelete table inet ").append(table).append('\n');
        s.append("table inet ").append(table).append(" {\n  chain out {\n")
                .append("    type filter hook output priority 0; policy accept;\n")
                .append("    meta skuid 0-4294967295 meta mark set meta mark | ").append(o).append('\n');
        for (TestHost h : members) {
            s.append("    socket cgroupv2 level 2 \"").append(run.cgroupName(h)).append("\" meta mark set meta mark | ")
                    .append(m).append('\n');
        }
        s.append("  }\n  chain in {\n    type filter hook input priority 0; policy accept;\n")
                .append("    tcp flags & (syn | ack) == syn | ack return\n")
                .append("    tcp flags & rst == rst return\n");
        for (TestHost h : members) {
            s.append("    socket cgroupv2 level 2 \"").append(run.cgroupName(h)).append("\" meta mark & ").append(om)
                    .append(" == ").append(o).append(" drop\n");
        }
        for (TestHost h : members) {
            s.append("    socket cgroupv2 level 2 \"").append(run.cgroupName(h)).append("\" return\n");
        }
        s.append("    socket cgroupv2 level 0 \"/\" meta mark & ").append(m).append(" == ").append(m).append(" drop\n");
        s.append("  }\n}\n");
        run.loadRules(s.toString());
    }

    private static String hex(int v) {
        return String.format("0x%08x", v);
    }
}
