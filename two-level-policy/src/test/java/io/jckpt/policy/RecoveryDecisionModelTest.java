package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jckpt.RecoveryFallback;
import io.jckpt.imem.RestoreAction;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.imem.RollbackPlanner;
import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.OpenStatus;
import io.jckpt.wire.RankStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A model check of the recovery decision (the real {@link RollbackPlanner} and
 * {@link RecoveryDecision}, pure functions, no sockets) over every state the ranks' node-local stores
 * can be in around the completion of the first round and of a later one, under every placement of
 * two failures: both at once, or the second at any point of the recovery from the first.
 *
 * <p>The run: rounds up to {@code base} complete on every rank (0 = the first round), round
 * {@code base + 1} in progress, each owner's copy at any stage (here() writing it, complete at the
 * owner, being written and complete at each of its m holders), the next round's here() begun or done
 * on any rank its overwrite rule allows, and any ranks having recorded a round complete everywhere
 * once one is. A failure kills ranks with their stores kept or wiped (a write in progress is torn:
 * the version it was overwriting is gone, the new one is not there). The first recovery's decision is
 * then applied rank by rank, step by step (memory: store made, own copy received, newer copies
 * discarded; clean start: the record forgotten, the stores deleted), and the second failure hits
 * after any combination of those steps (before any: a failure during the exchanges).
 *
 * <p>Asserted for every recovery: the decision restores from memory the newest round whose every
 * owner's copy survives somewhere whenever one does; a checkpoint is declared lost only if a round
 * was complete on every rank (promised); with the stores kept, or at most m nodes lost in all, a
 * promised round is always restored and nothing is ever declared lost; a failure during a clean start
 * is a clean start again, and a failure during a memory restore restores the same round; the plan
 * from the newest copies alone, when conclusive, agrees with the plan from every copy.
 */
class RecoveryDecisionModelTest {
    private static final InetSocketAddress NOWHERE = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);

    /**
     * One rank's node: its store (or none), its record of a round complete everywhere, and per owner
     * the rounds of the complete copies it holds (bit r = round r).
     */
    record Node(boolean store, boolean recorded, int[] copies) {
        Node with(boolean newStore, boolean newRecorded) {
            return new Node(newStore, newRecorded, copies.clone());
        }

        String key() {
            StringBuilder b = new StringBuilder().append((char) ('0' + (store ? 1 : 0) + (recorded ? 2 : 0)));
            for (int c : copies) {
                b.append((char) ('a' + c));
            }
            return b.toString();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(store ? "store" : "none").append(recorded ? "+recorded" : "").append('[');
            for (int o = 0; o < copies.length; o++) {
                b.append(o == 0 ? "" : " ").append(o).append(':').append(rounds(copies[o]));
            }
            return b.append(']').toString();
        }
    }

    private static List<Long> rounds(int mask) {
        List<Long> out = new ArrayList<>();
        for (int r = 1; r < 31; r++) {
            if ((mask & (1 << r)) != 0) {
                out.add((long) r);
            }
        }
        return out;
    }

    private int n;
    private int m;
    private long recoveries;
    private long states;
    private final Set<String> seenFirst = new HashSet<>();
    private final Set<String> seenSecond = new HashSet<>();

    @ParameterizedTest(name = "n={0} m={1}")
    @CsvSource({"4, 1", "3, 1", "4, 2", "3, 2"})
    void theVerdictNeverDeclaresLostWhatExistsOrWasNeverPromised(int ranks, int replicas) {
        n = ranks;
        m = replicas;
        for (int base = 0; base <= 2; base++) {
            runStates(base);
        }
        // nobody began the first here(): no store anywhere
        Node[] empty = new Node[n];
        for (int j = 0; j < n; j++) {
            empty[j] = node(false, false);
        }
        failures(empty, 0);
        assertTrue(recoveries > 1000, "model too small: " + recoveries);
        System.out.printf("n=%d m=%d: %d run states, %d distinct first recoveries, %d distinct second recoveries%n",
                n, m, states, seenFirst.size(), seenSecond.size());
    }

    /** Every run state with rounds up to {@code base} complete everywhere and round base + 1 in progress. */
    private void runStates(int base) {
        int top = 2 * m + 2; // stages of an owner's copy: 0 none, 1 own writing, 2 own complete, 2d+1 / 2d+2 hop d
        int[] stage = new int[n];
        int[] next = new int[n];
        do {
            boolean allDone = Arrays.stream(stage).allMatch(s -> s == top);
            long promised = allDone ? base + 1 : base;
            Arrays.fill(next, 0);
            do {
                if (!nextRoundAllowed(stage, next, base, allDone)) {
                    continue;
                }
                Node[] nodes = build(base, stage, next);
                List<boolean[]> recordings = new ArrayList<>();
                recordings.add(new boolean[n]);
                if (promised >= 1) {
                    boolean[] all = new boolean[n];
                    Arrays.fill(all, true);
                    recordings.add(all);
                    for (int k = 0; k < n; k++) {
                        boolean[] one = new boolean[n];
                        one[k] = true;
                        recordings.add(one);
                    }
                }
                for (boolean[] rec : recordings) {
                    Node[] withRec = new Node[n];
                    for (int j = 0; j < n; j++) {
                        withRec[j] = nodes[j].with(nodes[j].store(), rec[j]);
                    }
                    states++;
                    failures(withRec, promised);
                }
            } while (increment(next, 2));
        } while (increment(stage, top));
    }

    /** here() of round base + 2 overwrites round base's version: only once round base + 1 is complete everywhere. */
    private static boolean nextRoundAllowed(int[] stage, int[] next, int base, boolean allDone) {
        for (int j = 0; j < stage.length; j++) {
            if (next[j] > 0 && (stage[j] < 2 || (base >= 1 && !allDone))) {
                return false;
            }
        }
        return true;
    }

    private Node[] build(int base, int[] stage, int[] next) {
        Node[] nodes = new Node[n];
        for (int j = 0; j < n; j++) {
            nodes[j] = node(true, false);
        }
        int r = base + 1;
        for (int o = 0; o < n; o++) {
            for (int d = 0; d <= m; d++) {
                int[] held = nodes[(o + d) % n].copies();
                for (int old = Math.max(1, base - 1); old <= base; old++) {
                    held[o] |= 1 << old;
                }
                int begun = d == 0 ? 1 : 2 * d + 1;
                if (stage[o] >= begun && Integer.bitCount(held[o]) == 2) {
                    held[o] &= ~Integer.lowestOneBit(held[o]); // two versions: the older one is overwritten
                }
                if (stage[o] >= begun + 1) {
                    held[o] |= 1 << r;
                }
            }
            int[] own = nodes[o].copies();
            if (next[o] >= 1 && Integer.bitCount(own[o]) == 2) {
                own[o] &= ~Integer.lowestOneBit(own[o]);
            }
            if (next[o] == 2) {
                own[o] |= 1 << (r + 1);
            }
        }
        return nodes;
    }

    /** Two failures: both at once, or one now and one during the recovery from it. */
    private void failures(Node[] run, long promised) {
        for (int x = 0; x < n; x++) {
            for (boolean wipeX : new boolean[] {false, true}) {
                // one failure now, the second during the recovery
                Node[] afterX = failed(run, x, wipeX);
                String key = promised + "/" + x + wipeX + keyOf(afterX);
                if (seenFirst.add(key)) {
                    RecoveryDecision first = recover(afterX, Set.of(x), promised, wipeX ? 1 : 0, "x=" + x + (wipeX ? "w" : ""));
                    duringRecovery(afterX, first, x, wipeX, promised);
                }
                for (int y = x + 1; y < n; y++) {
                    for (boolean wipeY : new boolean[] {false, true}) {
                        Node[] both = failed(afterX, y, wipeY);
                        if (seenFirst.add(promised + "/" + x + wipeX + y + wipeY + keyOf(both))) {
                            recover(both, Set.of(x, y), promised, (wipeX ? 1 : 0) + (wipeY ? 1 : 0),
                                    "x=" + x + (wipeX ? "w" : "") + " y=" + y + (wipeY ? "w" : ""));
                        }
                    }
                }
            }
        }
    }

    private Node[] failed(Node[] nodes, int rank, boolean wipe) {
        Node[] out = nodes.clone();
        if (wipe) {
            out[rank] = node(false, false);
        }
        return out;
    }

    /** The first recovery applied rank by rank, then the second failure at every combination of steps. */
    private void duringRecovery(Node[] before, RecoveryDecision first, int x, boolean wipeX, long promised) {
        if (first.source() == RecoveryDecision.Source.NOT_RECOVERABLE) {
            return; // the job ends there
        }
        List<List<Node>> outcomes = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            List<Node> steps = new ArrayList<>();
            Node cur = before[j];
            steps.add(cur);
            if (first.source() == RecoveryDecision.Source.MEMORY) {
                int r = (int) first.round();
                cur = cur.with(true, cur.recorded()); // the store (a new empty one when the node was lost)
                steps.add(cur);
                cur = cur.with(true, cur.recorded());
                cur.copies()[j] |= 1 << r; // its own copy: local, or received
                steps.add(cur);
                cur = cur.with(true, cur.recorded());
                for (int o = 0; o < n; o++) {
                    cur.copies()[o] &= (1 << (r + 1)) - 1; // newer rounds discarded
                }
                steps.add(cur);
            } else {
                cur = cur.with(cur.store(), false); // the record forgotten
                steps.add(cur);
                cur = node(false, false); // the stores deleted
                steps.add(cur);
            }
            List<Node> distinct = new ArrayList<>();
            Set<String> keys = new HashSet<>();
            for (Node s : steps) {
                if (keys.add(s.key())) {
                    distinct.add(s);
                }
            }
            outcomes.add(distinct);
        }
        long promisedAfter = first.source() == RecoveryDecision.Source.CLEAN_START ? 0 : promised;
        int[] pick = new int[n];
        do {
            boolean ok = true;
            Node[] state = new Node[n];
            for (int j = 0; j < n; j++) {
                if (pick[j] >= outcomes.get(j).size()) {
                    ok = false;
                    break;
                }
                state[j] = outcomes.get(j).get(pick[j]);
            }
            if (!ok) {
                continue;
            }
            for (int y = 0; y < n; y++) {
                for (boolean wipeY : new boolean[] {false, true}) {
                    Node[] after = failed(state, y, wipeY);
                    int wiped = (wipeX ? 1 : 0) + (wipeY && !(wipeX && y == x) ? 1 : 0);
                    String k2 = first.source() + "/" + first.round() + "/" + promisedAfter + "/" + wiped + "/" + y
                            + keyOf(after);
                    if (!seenSecond.add(k2)) {
                        continue;
                    }
                    String history = "x=" + x + (wipeX ? "w" : "") + " then " + first.source() + " " + first.round()
                            + ", steps " + Arrays.toString(pick) + ", y=" + y + (wipeY ? "w" : "");
                    RecoveryDecision second = recover(after, Set.of(y), promisedAfter, wiped, history);
                    if (!wipeY && wiped <= m) {
                        if (first.source() == RecoveryDecision.Source.CLEAN_START) {
                            assertEquals(RecoveryDecision.Source.CLEAN_START, second.source(), history + ": " + second);
                        } else {
                            assertEquals(RecoveryDecision.Source.MEMORY, second.source(), history + ": " + second);
                            assertEquals(first.round(), second.round(), history + ": " + second);
                        }
                    }
                }
            }
        } while (increment(pick, 3));
    }

    /**
     * One recovery from the nodes as they are, checked.
     *
     * @param wiped how many distinct nodes were lost in the whole history
     * @return the decision
     */
    private RecoveryDecision recover(Node[] nodes, Set<Integer> fresh, long promised, int wiped, String history) {
        recoveries++;
        List<RankStatus> all = new ArrayList<>();
        List<RankStatus> newest = new ArrayList<>();
        List<OpenStatus> open = new ArrayList<>();
        long copiesAnywhere = 0;
        for (int j = 0; j < n; j++) {
            Node node = nodes[j];
            List<CopyStatus> copies = new ArrayList<>();
            List<CopyStatus> newestCopies = new ArrayList<>();
            for (int o = 0; o < n; o++) {
                for (long r : rounds(node.copies()[o])) {
                    copies.add(copy(o, r));
                }
                if (node.copies()[o] != 0) {
                    newestCopies.add(copy(o, 31 - Integer.numberOfLeadingZeros(node.copies()[o])));
                }
            }
            copiesAnywhere += copies.size();
            all.add(new RankStatus(j, fresh.contains(j), copies));
            newest.add(new RankStatus(j, fresh.contains(j), newestCopies));
            long ownNewest = node.copies()[j] == 0 ? 0 : 31 - Integer.numberOfLeadingZeros(node.copies()[j]);
            open.add(new OpenStatus(1, node.store() ? 4096 : 0, copies.size(), ownNewest, node.recorded(), NOWHERE,
                    null, node.store() ? List.of(new StoreLayout(1, m, m, 4096, 2).toWire()) : List.of(),
                    newest.get(j), 0));
        }
        RollbackPlan plan = copiesAnywhere > 0 ? RollbackPlanner.plan(all) : null;
        RecoveryDecision d = RecoveryDecision.decide(open, plan, null, RecoveryFallback.ERROR);
        String where = history + " " + Arrays.toString(nodes) + " promised " + promised + ": " + d;
        long available = newestAvailable(nodes);
        if (available >= 1) {
            assertEquals(RecoveryDecision.Source.MEMORY, d.source(), where);
            assertEquals(available, d.round(), where);
        }
        if (d.source() == RecoveryDecision.Source.NOT_RECOVERABLE && promised < 1) {
            fail("declared lost though no round was ever complete on every rank: " + where);
        }
        if (wiped <= m && promised >= 1) {
            // the promise of m copies: a promised round is restored
            assertEquals(RecoveryDecision.Source.MEMORY, d.source(), where);
            assertTrue(d.round() >= promised, where);
        }
        if (plan != null && plan.recoverable() && wiped == 0 && promised >= 1) {
            assertTrue(plan.round() >= promised, where);
        }
        // the plan from the newest copies alone (a NEWEST_PER_OWNER open), when ImemRecovery keeps it
        RollbackPlan quick = copiesAnywhere > 0 ? RollbackPlanner.plan(newest) : null;
        if (quick != null && quick.recoverable() && conclusive(quick, newest)) {
            assertEquals(plan.round(), quick.round(), where);
        }
        return d;
    }

    /** ImemRecovery's rule for keeping the first plan: every surviving rank restores locally. */
    private static boolean conclusive(RollbackPlan plan, List<RankStatus> statuses) {
        for (RankStatus st : statuses) {
            if (!st.fresh() && plan.action(st.rank()).kind() != RestoreAction.Kind.LOCAL) {
                return false;
            }
        }
        return true;
    }

    /** The newest round of which every owner's copy is on some node, computed from the model alone; 0 if none. */
    private long newestAvailable(Node[] nodes) {
        int everyOwner = ~0;
        for (int o = 0; o < n; o++) {
            int somewhere = 0;
            for (Node node : nodes) {
                somewhere |= node.copies()[o];
            }
            everyOwner &= somewhere;
        }
        everyOwner &= ~1;
        return everyOwner == 0 ? 0 : 31 - Integer.numberOfLeadingZeros(everyOwner);
    }

    private Node node(boolean store, boolean recorded) {
        return new Node(store, recorded, new int[n]);
    }

    private static CopyStatus copy(int owner, long round) {
        return new CopyStatus(owner, round, 100 + owner * 7 + round, (int) (owner * 1_000_003L + round * 7919L), true);
    }

    private static String keyOf(Node[] nodes) {
        StringBuilder b = new StringBuilder();
        for (Node node : nodes) {
            b.append(node.key());
        }
        return b.toString();
    }

    /** Odometer over [0, max]^k; false after the last. */
    private static boolean increment(int[] digits, int max) {
        for (int i = 0; i < digits.length; i++) {
            if (digits[i] < max) {
                digits[i]++;
                return true;
            }
            digits[i] = 0;
        }
        return false;
    }
}
