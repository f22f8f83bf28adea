package io.jckpt.codes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which ranks form each redundancy set, given the host of every rank (a pure function, model-tested).
 *
 * <p>g = ceil(ranks / set size) sets (fewer where that would leave a set of P or fewer ranks, which
 * no code protects: the sets grow instead), their sizes differing by at most one. The ranks are dealt
 * to the sets in turn, host by host (hosts in the order of their first rank, each host's ranks in rank
 * order), so a host with c ranks puts ceil(c / g) of them in any one set: every set is on distinct
 * hosts whenever every host has at most g ranks, which is also the only case where that is possible,
 * and otherwise no set has more of one host than it must. {@link SetPlan#placementLine()} says which.
 */
public final class SetPlanner {
    private SetPlanner() {
    }

    /**
     * @param redundancy xor:K or rs:K+P
     * @param hostOfRank each rank's host (by rank)
     * @return the sets
     * @throws IllegalArgumentException for copies, or fewer ranks than P + 1
     */
    public static SetPlan plan(Redundancy redundancy, List<String> hostOfRank) {
        if (!redundancy.isCode()) {
            throw new IllegalArgumentException(redundancy + " keeps full copies: it has no parity sets");
        }
        int ranks = hostOfRank.size();
        int p = redundancy.parity();
        if (ranks < p + 1) {
            throw new IllegalArgumentException(redundancy + " needs at least " + (p + 1) + " ranks (a set of " + p
                    + " parity part(s) and one image at least); the job has " + ranks);
        }
        int sets = Math.max(1, Math.min(ceilDiv(ranks, redundancy.setSize()), ranks / (p + 1)));
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < ranks; r++) {
            String host = hostOfRank.get(r);
            if (host == null || host.isEmpty()) {
                throw new IllegalArgumentException("rank " + r + " has no host");
            }
            byHost.computeIfAbsent(host, h -> new ArrayList<>()).add(r);
        }
        List<List<Integer>> members = new ArrayList<>();
        for (int s = 0; s < sets; s++) {
            members.add(new ArrayList<>());
        }
        int i = 0;
        for (List<Integer> onHost : byHost.values()) {
            for (int r : onHost) {
                members.get(i++ % sets).add(r);
            }
        }
        List<SetPlan.RedundancySet> out = new ArrayList<>();
        for (int s = 0; s < sets; s++) {
            int[] rs = members.get(s).stream().mapToInt(Integer::intValue).sorted().toArray();
            List<String> hosts = new ArrayList<>();
            for (int r : rs) {
                hosts.add(hostOfRank.get(r));
            }
            out.add(new SetPlan.RedundancySet(s, rs, hosts));
        }
        return new SetPlan(redundancy, out, ranks);
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
