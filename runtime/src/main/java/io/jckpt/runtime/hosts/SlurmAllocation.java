package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The hosts of a SLURM allocation, read from the environment SLURM gives a job (passed in as a map, so
 * that this is pure): the nodes from {@code SLURM_JOB_NODELIST} (else {@code SLURM_NODELIST}) in SLURM's
 * compressed syntax, and each node's slots from {@code SLURM_TASKS_PER_NODE} (else 1 per node).
 *
 * <p>Nodelist syntax: entries separated by commas outside brackets; an entry is text with any number of
 * bracket groups, each a comma-separated list of numbers and {@code lo-hi} ranges, expanded in order with
 * the leftmost group varying slowest; a range keeps the width of its lower bound (zero padding):
 * {@code node[01-03,07],gpu[1-2]} is node01, node02, node03, node07, gpu1, gpu2 and
 * {@code r[1-2]n[1-2]} is r1n1, r1n2, r2n1, r2n2. Tasks per node: comma-separated counts, {@code N(xK)}
 * meaning K nodes with N each: {@code 2(x3),1} is 2, 2, 2, 1.
 */
public final class SlurmAllocation {
    /** The job's nodes (compressed). */
    public static final String JOB_NODELIST = "SLURM_JOB_NODELIST";
    /** The older name of {@link #JOB_NODELIST}. */
    public static final String NODELIST = "SLURM_NODELIST";
    /** Tasks per node, e.g. {@code 2(x3),1}. */
    public static final String TASKS_PER_NODE = "SLURM_TASKS_PER_NODE";
    /** An expansion larger than this is refused (a typo such as {@code n[1-99999999]}). */
    public static final int MAX_HOSTS = 65_536;

    private SlurmAllocation() {
    }

    /**
     * @param env the environment (e.g. {@code System.getenv()})
     * @return the allocation's hosts, or empty outside a SLURM allocation (no nodelist variable)
     * @throws UsageException naming the variable and its value when one is malformed or the counts disagree
     */
    public static Optional<HostList> fromEnvironment(Map<String, String> env) throws UsageException {
        String variable = JOB_NODELIST;
        String nodelist = env.get(JOB_NODELIST);
        if (nodelist == null || nodelist.isBlank()) {
            variable = NODELIST;
            nodelist = env.get(NODELIST);
        }
        if (nodelist == null || nodelist.isBlank()) {
            return Optional.empty();
        }
        List<String> nodes = expandNodelist(variable, nodelist);
        String tasks = env.get(TASKS_PER_NODE);
        List<Host> hosts = new ArrayList<>(nodes.size());
        if (tasks == null || tasks.isBlank()) {
            for (String node : nodes) {
                hosts.add(new Host(node, 1));
            }
        } else {
            List<Integer> counts = expandTasksPerNode(TASKS_PER_NODE, tasks);
            if (counts.size() != nodes.size()) {
                throw new UsageException(TASKS_PER_NODE + " '" + tasks + "' gives " + counts.size()
                        + " task counts for the " + nodes.size() + " nodes of " + variable + " '" + nodelist + "'");
            }
            for (int i = 0; i < nodes.size(); i++) {
                hosts.add(new Host(nodes.get(i), counts.get(i)));
            }
        }
        return Optional.of(HostList.of("SLURM allocation (" + variable + "=" + nodelist + ")", hosts));
    }

    /**
     * Expands a compressed SLURM nodelist.
     *
     * @param what  the variable or option it came from, for messages
     * @param value e.g. {@code node[01-03,07],gpu[1-2]}
     * @return the host names in order (duplicates kept)
     * @throws UsageException naming {@code what}, the value and the problem
     */
    public static List<String> expandNodelist(String what, String value) throws UsageException {
        String prefix = what + " '" + value + "': ";
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= value.length(); i++) {
            char c = i < value.length() ? value.charAt(i) : ',';
            if (c == '[') {
                if (++depth > 1) {
                    throw new UsageException(prefix + "nested '[' at character " + (i + 1));
                }
            } else if (c == ']') {
                if (--depth < 0) {
                    throw new UsageException(prefix + "']' without '[' at character " + (i + 1));
                }
            } else if (c == ',' && depth == 0) {
                String entry = value.substring(start, i).strip();
                if (entry.isEmpty()) {
                    throw new UsageException(prefix + "empty entry");
                }
                expandEntry(prefix, entry, out);
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new UsageException(prefix + "'[' without ']'");
        }
        return out;
    }

    private static void expandEntry(String prefix, String entry, List<String> out) throws UsageException {
        List<String> names = new ArrayList<>();
        names.add("");
        int i = 0;
        while (i < entry.length()) {
            int open = entry.indexOf('[', i);
            String text = open < 0 ? entry.substring(i) : entry.substring(i, open);
            for (int k = 0; k < names.size(); k++) {
                names.set(k, names.get(k) + text);
            }
            if (open < 0) {
                break;
            }
            int close = entry.indexOf(']', open);
            List<String> values = expandRanges(prefix, entry.substring(open + 1, close));
            if ((long) names.size() * values.size() + out.size() > MAX_HOSTS) {
                throw new UsageException(prefix + "expands to more than " + MAX_HOSTS + " hosts");
            }
            List<String> product = new ArrayList<>(names.size() * values.size());
            for (String name : names) {
                for (String v : values) {
                    product.add(name + v);
                }
            }
            names = product;
            i = close + 1;
        }
        for (String name : names) {
            if (!Host.validName(name)) {
                throw new UsageException(prefix + "bad host name '" + name + "' in entry '" + entry + "'");
            }
        }
        out.addAll(names);
        if (out.size() > MAX_HOSTS) {
            throw new UsageException(prefix + "expands to more than " + MAX_HOSTS + " hosts");
        }
    }

    private static List<String> expandRanges(String prefix, String group) throws UsageException {
        List<String> values = new ArrayList<>();
        for (String part : group.split(",", -1)) {
            String p = part.strip();
            int dash = p.indexOf('-');
            String lo = dash < 0 ? p : p.substring(0, dash);
            String hi = dash < 0 ? p : p.substring(dash + 1);
            if (!digits(lo) || !digits(hi)) {
                throw new UsageException(prefix + "'" + p + "' in [" + group + "] is not a number or a range lo-hi");
            }
            long from;
            long to;
            try {
                from = Long.parseLong(lo);
                to = Long.parseLong(hi);
            } catch (NumberFormatException e) {
                throw new UsageException(prefix + "'" + p + "' in [" + group + "]: number too large");
            }
            if (to < from) {
                throw new UsageException(prefix + "range '" + p + "' in [" + group + "] goes downwards");
            }
            if (to - from + 1 + values.size() > MAX_HOSTS) {
                throw new UsageException(prefix + "expands to more than " + MAX_HOSTS + " hosts");
            }
            int width = lo.length();
            for (long v = from; v <= to; v++) {
                String s = Long.toString(v);
                values.add(s.length() >= width ? s : "0".repeat(width - s.length()) + s);
            }
        }
        return values;
    }

    private static boolean digits(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Expands SLURM's tasks-per-node syntax.
     *
     * @param what  the variable it came from, for messages
     * @param value e.g. {@code 2(x3),1}
     * @return one count per node, e.g. 2, 2, 2, 1
     * @throws UsageException naming {@code what}, the value and the bad entry
     */
    public static List<Integer> expandTasksPerNode(String what, String value) throws UsageException {
        String prefix = what + " '" + value + "': ";
        List<Integer> counts = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String p = part.strip();
            String count = p;
            String repeat = "1";
            int paren = p.indexOf('(');
            if (paren >= 0) {
                if (!p.endsWith(")") || !p.startsWith("x", paren + 1)) {
                    throw new UsageException(prefix + "'" + p + "' is not N or N(xK)");
                }
                count = p.substring(0, paren);
                repeat = p.substring(paren + 2, p.length() - 1);
            }
            if (!digits(count) || !digits(repeat)) {
                throw new UsageException(prefix + "'" + p + "' is not N or N(xK)");
            }
            long n = Long.parseLong(count);
            long k = Long.parseLong(repeat);
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new UsageException(prefix + "'" + p + "': tasks per node must be at least 1");
            }
            if (k < 1) {
                throw new UsageException(prefix + "'" + p + "': the repeat count must be at least 1");
            }
            if (k + counts.size() > MAX_HOSTS) {
                throw new UsageException(prefix + "counts more than " + MAX_HOSTS + " nodes");
            }
            for (long j = 0; j < k; j++) {
                counts.add((int) n);
            }
        }
        return counts;
    }
}
