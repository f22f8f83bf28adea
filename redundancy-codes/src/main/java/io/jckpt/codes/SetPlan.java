package io.jckpt.codes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The redundancy sets of a job ({@link SetPlanner}): each set's ranks and hosts, whether the hosts allowed
 * every set on distinct hosts, the placement line that says so, and the memory each rank holds for the
 * others of its set.
 *
 * @param redundancy the code
 * @param sets the sets, by index
 * @param ranks the job's ranks
 */
public record SetPlan(Redundancy redundancy, List<RedundancySet> sets, int ranks) {
    /**
     * One set.
     *
     * @param index its index
     * @param ranks its ranks, ascending (member i is ranks[i])
     * @param hosts their hosts
     */
    public record RedundancySet(int index, int[] ranks, List<String> hosts) {
        /** Copies. */
        public RedundancySet {
            ranks = ranks.clone();
            hosts = List.copyOf(hosts);
        }

        @Override
        public int[] ranks() {
            return ranks.clone();
        }

        /** @return its members */
        public int size() {
            return ranks.length;
        }

        /**
         * @param rank a rank of the set
         * @return its member index
         */
        public int memberOf(int rank) {
            int i = Arrays.binarySearch(ranks, rank);
            if (i < 0) {
                throw new IllegalArgumentException("rank " + rank + " is not in set " + index + " " + Arrays.toString(ranks));
            }
            return i;
        }

        /** @return the most members on one host (a host lost takes that many) */
        public int mostOnOneHost() {
            Map<String, Integer> count = new HashMap<>();
            int most = 0;
            for (String h : hosts) {
                most = Math.max(most, count.merge(h, 1, Integer::sum));
            }
            return most;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RedundancySet s && index == s.index && Arrays.equals(ranks, s.ranks) && hosts.equals(s.hosts);
        }

        @Override
        public int hashCode() {
            return 31 * index + Arrays.hashCode(ranks);
        }

        @Override
        public String toString() {
            return "set " + index + " (ranks " + Arrays.toString(ranks) + ")";
        }
    }

    /** Copies. */
    public SetPlan {
        sets = List.copyOf(sets);
    }

    /**
     * @param rank a rank
     * @return its set
     */
    public RedundancySet setOf(int rank) {
        for (RedundancySet s : sets) {
            if (Arrays.binarySearch(s.ranks, rank) >= 0) {
                return s;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " is in no set of " + ranks + " ranks");
    }

    /** @return true when every set has its members on distinct hosts */
    public boolean hostsDistinct() {
        return sets.stream().allMatch(s -> s.mostOnOneHost() == 1);
    }

    /** @return true when losing any one host leaves every set rebuildable */
    public boolean survivesHostLoss() {
        return sets.stream().allMatch(s -> s.mostOnOneHost() <= redundancy.parity());
    }

    /**
     * @return one line for the job's placement report, e.g. "xor:4: 3 sets of 4 ranks, each on 4 different
     *         hosts" or why not
     */
    public String placementLine() {
        int min = sets.stream().mapToInt(RedundancySet::size).min().orElse(0);
        int max = sets.stream().mapToInt(RedundancySet::size).max().orElse(0);
        String sizes = min == max ? Integer.toString(min) : min + "-" + max;
        StringBuilder line = new StringBuilder(redundancy + ": " + sets.size() + " set" + (sets.size() == 1 ? "" : "s")
                + " of " + sizes + " ranks");
        if (max != redundancy.setSize()) {
            line.append(" (").append(ranks).append(" ranks do not make sets of ").append(redundancy.setSize()).append(")");
        }
        if (hostsDistinct()) {
            return line.append(", each on different hosts").toString();
        }
        List<String> crowded = new ArrayList<>();
        for (RedundancySet s : sets) {
            if (s.mostOnOneHost() > 1) {
                crowded.add("set " + s.index + " has " + s.mostOnOneHost() + " on one host");
            }
        }
        line.append("; the hosts do not allow different hosts per set: ").append(String.join(", ", crowded));
        line.append(survivesHostLoss() ? "; a lost host still leaves every set rebuildable"
                : "; a lost host can take more than " + redundancy.parity() + " member(s) of a set: the disk level covers that");
        return line.toString();
    }

    /**
     * The parity a rank holds for the others of its set: p · ceil(largest image of its set / k), the
     * images of a set padded to the largest.
     *
     * @param rank a rank
     * @param imageLengthByRank every rank's image, bytes
     * @return bytes
     */
    public long heldForOthers(int rank, long[] imageLengthByRank) {
        RedundancySet s = setOf(rank);
        long largest = 0;
        for (int r : s.ranks) {
            largest = Math.max(largest, imageLengthByRank[r]);
        }
        ParityLayoutDescriptor layout = redundancy.layout(s.size());
        return layout.parityLength(layout.chunkLength(largest));
    }
}
