package io.jckpt.runtime.hosts;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An ordered list of distinct hosts with their slots, and where it came from (for messages). A host given
 * more than once (a hostfile that names it on several lines, {@code --host a,a}) appears once, at its first
 * position, with the slots of every mention added up: the mpirun convention.
 */
public final class HostList {
    private final String source;
    private final List<Host> hosts;

    private HostList(String source, List<Host> hosts) {
        this.source = source;
        this.hosts = Collections.unmodifiableList(hosts);
    }

    /**
     * @param source where the hosts came from, e.g. {@code "hostfile hosts.txt"}
     * @param hosts  hosts in order; repeated names are merged, slots added
     * @return the list
     */
    public static HostList of(String source, List<Host> hosts) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (Host h : hosts) {
            slots.merge(h.name(), h.slots(), HostList::addSlots);
        }
        List<Host> merged = new ArrayList<>(slots.size());
        slots.forEach((name, n) -> merged.add(new Host(name, n)));
        return new HostList(source, merged);
    }

    private static int addSlots(int a, int b) {
        long sum = (long) a + b;
        if (sum > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("more than " + Integer.MAX_VALUE + " slots on one host");
        }
        return (int) sum;
    }

    /** @return where the hosts came from (hostfile name, option, SLURM variable) */
    public String source() {
        return source;
    }

    /** @return the hosts, distinct, in order of first mention */
    public List<Host> hosts() {
        return hosts;
    }

    /** @return the number of distinct hosts */
    public int size() {
        return hosts.size();
    }

    /** @return whether there are no hosts */
    public boolean isEmpty() {
        return hosts.isEmpty();
    }

    /** @return the sum of every host's slots */
    public long totalSlots() {
        long total = 0;
        for (Host h : hosts) {
            total += h.slots();
        }
        return total;
    }

    /** @return the host of that name, if listed */
    public Optional<Host> find(String name) {
        for (Host h : hosts) {
            if (h.name().equals(name)) {
                return Optional.of(h);
            }
        }
        return Optional.empty();
    }

    /** @return e.g. {@code "a:2, b:2, c:1"} */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (Host h : hosts) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(h);
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HostList other && hosts.equals(other.hosts);
    }

    @Override
    public int hashCode() {
        return hosts.hashCode();
    }

    /** @return the source and the hosts */
    @Override
    public String toString() {
        return source + ": " + describe();
    }
}
