package io.jckpt.chaos;

import com.esotericsoftware.kryo.Kryo;
import java.util.ArrayList;
import java.util.List;

/**
 * The chaos program's object state, checkpointed through Kryo: one {@link Entry} per iteration, so
 * its image grows every iteration (the node-local slots grow with it, a store switch now and then),
 * by more with padding per entry (the chaos program's {@code --grow}), and a running total that feeds
 * back into the arithmetic.
 */
public final class Journal {
    private int owner;
    /** Longs of padding each entry carries (the chaos program's {@code --grow}): 0 for none. */
    private int padLongs;
    private long total;
    private ArrayList<Entry> entries = new ArrayList<>();

    /** For Kryo. */
    public Journal() {
    }

    Journal(int owner) {
        this(owner, 0);
    }

    /** @param padLongs longs of padding per entry, so that the image grows by that much more per iteration */
    Journal(int owner, int padLongs) {
        this.owner = owner;
        this.padLongs = padLongs;
    }

    /** One iteration's record: what the ring brought, what the Allreduce summed, a sample of the doubles. */
    public static final class Entry {
        private long iteration;
        private long received;
        private long global;
        private double sample;
        /** Deterministic padding (--grow), or null. */
        private long[] pad;

        /** For Kryo. */
        public Entry() {
        }

        Entry(long iteration, long received, long global, double sample, int padLongs) {
            this.iteration = iteration;
            this.received = received;
            this.global = global;
            this.sample = sample;
            if (padLongs > 0) {
                pad = new long[padLongs];
                long x = global ^ received ^ iteration;
                for (int k = 0; k < padLongs; k++) {
                    x = ChaosState.mix(x, k);
                    pad[k] = x;
                }
            }
        }
    }

    /** Registers the journal's classes (the chaos program's {@code CkptOptions.kryoConfigurer}). */
    public static void registerClasses(Kryo kryo) {
        kryo.register(Journal.class);
        kryo.register(Entry.class);
        kryo.register(ArrayList.class);
        kryo.register(long[].class);
    }

    void append(long iteration, long received, long global, double sample) {
        entries.add(new Entry(iteration, received, global, sample, padLongs));
        total += global ^ received;
    }

    /** A copy with its own entry list (entries are never changed once appended). */
    Journal copy() {
        Journal c = new Journal(owner, padLongs);
        c.total = total;
        c.entries = new ArrayList<>(entries);
        return c;
    }

    long total() {
        return total;
    }

    int size() {
        return entries.size();
    }

    /** Folds owner, total and every entry into {@code hash} (see {@link ChaosState#mix}). */
    long fold(long hash) {
        long h = ChaosState.mix(ChaosState.mix(hash, owner), total);
        List<Entry> list = entries;
        h = ChaosState.mix(h, list.size());
        for (Entry e : list) {
            h = ChaosState.mix(h, e.iteration);
            h = ChaosState.mix(h, e.received);
            h = ChaosState.mix(h, e.global);
            h = ChaosState.mix(h, Double.doubleToRawLongBits(e.sample));
            if (e.pad != null) {
                for (long v : e.pad) {
                    h = ChaosState.mix(h, v);
                }
            }
        }
        return h;
    }
}
