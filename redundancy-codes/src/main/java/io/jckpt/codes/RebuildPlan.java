package io.jckpt.codes;

import java.util.ArrayList;
import java.util.List;

/**
 * Who rebuilds what after members of a set are lost (a pure function of the layout and the lost
 * members): every stripe that lost a symbol is decoded by one surviving member from k surviving symbols
 * (its own among them), the stripes dealt to the survivors in turn so that the work is spread over the
 * set (xor:8 with one member lost: 8 stripes over 7 survivors, at most 2 each). The decoded symbols go to
 * the lost members' replacements; a stripe that lost more than p symbols is refused before any work.
 *
 * @param set the set's name, for errors
 * @param stripes the stripes to rebuild, by stripe
 */
public record RebuildPlan(String set, List<StripeRebuild> stripes) {
    /**
     * A symbol of a stripe.
     *
     * @param member who holds it
     * @param symbol 0..k−1 a data column (the member's chunk of that index), k..k+p−1 a parity row
     */
    public record Symbol(int member, int symbol) {
    }

    /**
     * One stripe's rebuild.
     *
     * @param stripe the stripe
     * @param rebuilder the surviving member that decodes it
     * @param sources the k surviving symbols it decodes from (its own first)
     * @param lost the symbols it rebuilds, for the lost members' replacements
     */
    public record StripeRebuild(int stripe, int rebuilder, List<Symbol> sources, List<Symbol> lost) {
        /** Copies. */
        public StripeRebuild {
            sources = List.copyOf(sources);
            lost = List.copyOf(lost);
        }
    }

    /** Copies. */
    public RebuildPlan {
        stripes = List.copyOf(stripes);
    }

    /**
     * @param layout the set's layout
     * @param set the set's name, for errors
     * @param lost which members are lost
     * @return the plan (no stripes when none is lost)
     * @throws SetLossException when more than p members are lost
     */
    public static RebuildPlan of(ParityLayoutDescriptor layout, String set, boolean[] lost) {
        int n = layout.members();
        int k = layout.dataColumns();
        int p = layout.parityRows();
        if (lost.length != n) {
            throw new IllegalArgumentException(set + ": " + lost.length + " lost flags for a set of " + n + " members");
        }
        List<Integer> lostMembers = new ArrayList<>();
        List<Integer> survivors = new ArrayList<>();
        for (int m = 0; m < n; m++) {
            (lost[m] ? lostMembers : survivors).add(m);
        }
        if (lostMembers.size() > p) {
            // each member holds one symbol of every stripe: every stripe misses as many symbols as members are lost
            throw new SetLossException(set, lostMembers, List.of(), "every stripe misses " + lostMembers.size() + " of its "
                    + n + " parts, the code rebuilds at most " + p + " per stripe (" + layout + ")");
        }
        List<StripeRebuild> out = new ArrayList<>();
        if (lostMembers.isEmpty()) {
            return new RebuildPlan(set, out);
        }
        int turn = 0;
        for (int s = 0; s < n; s++) {
            // every member holds a symbol of every stripe, so every survivor can rebuild any stripe
            int rebuilder = survivors.get(turn++ % survivors.size());
            List<Symbol> sources = new ArrayList<>();
            sources.add(new Symbol(rebuilder, layout.symbolOf(rebuilder, s)));
            for (int m : survivors) {
                if (sources.size() == k) {
                    break;
                }
                if (m != rebuilder) {
                    sources.add(new Symbol(m, layout.symbolOf(m, s)));
                }
            }
            List<Symbol> gone = new ArrayList<>();
            for (int m : lostMembers) {
                gone.add(new Symbol(m, layout.symbolOf(m, s)));
            }
            out.add(new StripeRebuild(s, rebuilder, sources, gone));
        }
        return new RebuildPlan(set, out);
    }

    /**
     * @param members the set's members
     * @return how many stripes each member rebuilds
     */
    public int[] stripesPerMember(int members) {
        int[] count = new int[members];
        for (StripeRebuild s : stripes) {
            count[s.rebuilder]++;
        }
        return count;
    }
}
