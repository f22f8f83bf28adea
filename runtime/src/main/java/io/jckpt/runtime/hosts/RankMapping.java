package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which host each rank runs on, and which hosts are spares for respawns. Built by {@link #map}: the job's
 * hosts in order, {@code -np}, a {@link MappingPolicy}, an optional cap of ranks per host
 * ({@code --ranks-per-node K}: a host runs at most min(its slots, K) ranks) and optional extra spare
 * hosts ({@code --spare-hosts}). Hosts of the list that receive no rank (entries beyond {@code -np}) are
 * spares too, before the extra ones. Immutable.
 */
public final class RankMapping {
    /** The host name of a job that runs every rank on the launcher's own host. */
    public static final String LOCAL_HOST = "localhost";

    private final List<String> hostOfRank;
    private final List<Host> hosts;
    private final Map<String, Integer> capacity;
    private final List<Host> spares;

    private RankMapping(List<String> hostOfRank, List<Host> hosts, Map<String, Integer> capacity, List<Host> spares) {
        this.hostOfRank = List.copyOf(hostOfRank);
        this.hosts = List.copyOf(hosts);
        this.capacity = Collections.unmodifiableMap(new LinkedHashMap<>(capacity));
        this.spares = List.copyOf(spares);
    }

    /**
     * @param np number of ranks, at least 1
     * @return every rank on {@link #LOCAL_HOST} (today's single-host job), no spares
     */
    public static RankMapping local(int np) {
        if (np < 1) {
            throw new IllegalArgumentException("-np must be at least 1, got " + np);
        }
        return new RankMapping(Collections.nCopies(np, LOCAL_HOST), List.of(new Host(LOCAL_HOST, np)),
                Map.of(LOCAL_HOST, np), List.of());
    }

    /**
     * @param hosts        the job's hosts in order
     * @param np           number of ranks, at least 1
     * @param policy       by slot or by node
     * @param ranksPerNode at most this many ranks per host, or 0 for no cap beyond the slots
     * @param extraSpares  hosts kept for respawns only ({@code --spare-hosts}); may be empty, none of them in
     *                     {@code hosts}
     * @return the mapping
     * @throws UsageException when {@code np} exceeds the slots (naming both counts and the hosts), or for a
     *                        spare host also in the host list, or a bad count
     */
    public static RankMapping map(HostList hosts, int np, MappingPolicy policy, int ranksPerNode, HostList extraSpares)
            throws UsageException {
        if (np < 1) {
            throw new UsageException("-np must be at least 1, got " + np);
        }
        if (ranksPerNode < 0) {
            throw new UsageException("--ranks-per-node must be at least 1, got " + ranksPerNode);
        }
        if (hosts.isEmpty()) {
            throw new UsageException(hosts.source() + " names no host");
        }
        for (Host s : extraSpares.hosts()) {
            if (hosts.find(s.name()).isPresent()) {
                throw new UsageException("host " + s.name() + " is both in " + hosts.source()
                        + " and in " + extraSpares.source() + "; a spare host must not run ranks from the start");
            }
        }
        List<Host> list = hosts.hosts();
        int[] cap = new int[list.size()];
        long capSum = 0;
        for (int h = 0; h < cap.length; h++) {
            cap[h] = ranksPerNode > 0 ? Math.min(list.get(h).slots(), ranksPerNode) : list.get(h).slots();
            capSum += cap[h];
        }
        if (np > capSum) {
            throw new UsageException("-np " + np + " exceeds the " + capSum + " slots of the " + list.size()
                    + (list.size() == 1 ? " host" : " hosts") + " in " + hosts.source()
                    + (ranksPerNode > 0 ? " with --ranks-per-node " + ranksPerNode : "")
                    + " (" + hosts.describe() + "); give more hosts or slots, or a smaller -np");
        }
        int[] assigned = new int[cap.length];
        String[] hostOf = new String[np];
        if (policy == MappingPolicy.SLOT) {
            int h = 0;
            for (int r = 0; r < np; r++) {
                while (assigned[h] == cap[h]) {
                    h++;
                }
                hostOf[r] = list.get(h).name();
                assigned[h]++;
            }
        } else {
            int h = 0;
            for (int r = 0; r < np; r++) {
                while (assigned[h] == cap[h]) {
                    h = (h + 1) % cap.length;
                }
                hostOf[r] = list.get(h).name();
                assigned[h]++;
                h = (h + 1) % cap.length;
            }
        }
        List<Host> used = new ArrayList<>();
        Map<String, Integer> capacity = new LinkedHashMap<>();
        List<Host> spares = new ArrayList<>();
        for (int h = 0; h < cap.length; h++) {
            if (assigned[h] > 0) {
                used.add(list.get(h));
                capacity.put(list.get(h).name(), cap[h]);
            } else {
                spares.add(list.get(h));
            }
        }
        spares.addAll(extraSpares.hosts());
        return new RankMapping(List.of(hostOf), used, capacity, spares);
    }

    /** @return the number of ranks */
    public int size() {
        return hostOfRank.size();
    }

    /** @return the host of a rank */
    public String hostOf(int rank) {
        if (rank < 0 || rank >= hostOfRank.size()) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (hostOfRank.size() - 1));
        }
        return hostOfRank.get(rank);
    }

    /** @return the host of every rank, indexed by rank */
    public List<String> hostOfRank() {
        return hostOfRank;
    }

    /** @return the hosts that run ranks, in host-list order */
    public List<Host> hosts() {
        return hosts;
    }

    /** @return the names of the hosts that run ranks, in order */
    public Set<String> hostNames() {
        return capacity.keySet();
    }

    /** @return how many ranks a host that runs ranks may run (its slots, capped by ranks-per-node) */
    public int capacity(String host) {
        Integer c = capacity.get(host);
        if (c == null) {
            throw new IllegalArgumentException("host " + host + " runs no rank of this job");
        }
        return c;
    }

    /** @return every job host's capacity, in host order */
    public Map<String, Integer> capacities() {
        return capacity;
    }

    /** @return the ranks on a host, ascending */
    public List<Integer> ranksOn(String host) {
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < hostOfRank.size(); r++) {
            if (hostOfRank.get(r).equals(host)) {
                ranks.add(r);
            }
        }
        return ranks;
    }

    /** @return spare hosts for respawns, in order: unused list entries, then {@code --spare-hosts} */
    public List<Host> spares() {
        return spares;
    }

    /** @return e.g. {@code "a: ranks 0,1; b: ranks 2,3; spare: c:2"} */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (Host h : hosts) {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(h.name()).append(": ranks ");
            List<Integer> ranks = ranksOn(h.name());
            for (int i = 0; i < ranks.size(); i++) {
                b.append(i == 0 ? "" : ",").append(ranks.get(i));
            }
        }
        if (!spares.isEmpty()) {
            b.append("; spare: ");
            for (int i = 0; i < spares.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(spares.get(i));
            }
        }
        return b.toString();
    }

    /** @return {@link #describe()} */
    @Override
    public String toString() {
        return describe();
    }
}
