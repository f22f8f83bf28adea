package io.jckpt.chaos;

import java.nio.ByteBuffer;

/**
 * One rank's state in the chaos program, and its arithmetic: every registered data type (double[],
 * int[], long[], a direct ByteBuffer, a Kryo {@link Journal}, a long[1] iteration counter), updated
 * by integer and IEEE arithmetic that Java evaluates identically everywhere, so a run's final
 * checksum is bit-identical to a failure-free run whatever failures and rollbacks happened between.
 * {@link #reference} runs the same arithmetic for every rank in one thread: the value a launched run
 * must print, computed without MPJ Express or the library.
 */
public final class ChaosState {
    final double[] doubles;
    final int[] ints;
    final long[] longs;
    final ByteBuffer buffer;
    final long[] counter = new long[1];
    Journal journal;

    private ChaosState(int elements, ByteBuffer buffer) {
        this.doubles = new double[elements];
        this.ints = new int[elements];
        this.longs = new long[elements];
        this.buffer = buffer;
    }

    /** The initial state of {@code rank}; {@code buffer} holds {@code 8 * elements} bytes. */
    static ChaosState initial(int rank, int elements, ByteBuffer buffer) {
        return initial(rank, elements, buffer, 0);
    }

    /**
     * As {@link #initial(int, int, ByteBuffer)}, the journal's entries padded by {@code growLongs} longs
     * each: the state grows by {@code 8 * growLongs} bytes more per iteration.
     */
    static ChaosState initial(int rank, int elements, ByteBuffer buffer, int growLongs) {
        if (buffer.capacity() != 8L * elements) {
            throw new IllegalArgumentException("buffer of " + buffer.capacity() + " bytes for " + elements + " elements");
        }
        ChaosState s = new ChaosState(elements, buffer);
        for (int j = 0; j < elements; j++) {
            s.longs[j] = rank * 1_000_003L + j * 7919L;
            s.ints[j] = rank ^ (j * 31);
            s.doubles[j] = rank + j / 1024.0;
            buffer.putLong(8 * j, (long) j * (rank + 1) + 13);
        }
        s.journal = new Journal(rank, growLongs);
        return s;
    }

    /** Iteration {@code i}'s local step: updates every array and the buffer; returns this rank's token. */
    long compute(long i) {
        long acc = i * 0x9E3779B97F4A7C15L ^ journal.total();
        for (int j = 0; j < longs.length; j++) {
            long x = longs[j] * 0xD1B54A32D192ED03L + ints[j] + i;
            x ^= x >>> 31;
            longs[j] = x;
            ints[j] ^= (int) (x >>> 23);
            doubles[j] = doubles[j] * 0.75 + (x & 0xFFFF) / 65536.0;
            buffer.putLong(8 * j, buffer.getLong(8 * j) + x);
            acc += x;
        }
        return acc;
    }

    /** Iteration {@code i}'s second half: what the ring brought and the Allreduce's sum go into the state. */
    void absorb(long i, long received, long global) {
        int j = (int) (i % longs.length);
        longs[j] ^= received;
        ints[j] += (int) global;
        journal.append(i, received, global, doubles[j]);
        counter[0] = i;
    }

    /** This rank's checksum over everything registered. */
    long checksum() {
        long h = mix(0x243F6A8885A308D3L, counter[0]);
        for (double d : doubles) {
            h = mix(h, Double.doubleToRawLongBits(d));
        }
        for (int v : ints) {
            h = mix(h, v);
        }
        for (long v : longs) {
            h = mix(h, v);
        }
        for (int j = 0; j < buffer.capacity(); j += 8) {
            h = mix(h, buffer.getLong(j));
        }
        return journal.fold(h);
    }

    /** A deep copy (what a checkpoint of this state holds), into a heap buffer. */
    ChaosState copy() {
        ChaosState c = new ChaosState(longs.length, ByteBuffer.allocate(buffer.capacity()));
        System.arraycopy(doubles, 0, c.doubles, 0, doubles.length);
        System.arraycopy(ints, 0, c.ints, 0, ints.length);
        System.arraycopy(longs, 0, c.longs, 0, longs.length);
        c.buffer.put(0, buffer, 0, buffer.capacity());
        c.counter[0] = counter[0];
        c.journal = journal.copy();
        return c;
    }

    /** The job's checksum from every rank's, in rank order. */
    static long combine(long[] perRank) {
        long h = 0x13198A2E03707344L;
        for (long v : perRank) {
            h = mix(h, v);
        }
        return h;
    }

    static long mix(long h, long v) {
        long x = (h ^ v) * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 29);
    }

    /**
     * The checksum a failure-free run of {@code size} ranks, {@code iterations} iterations and
     * {@code elements} elements per array prints: every rank's arithmetic in one thread, the ring
     * exchange and the sum done by hand.
     */
    public static long reference(int size, long iterations, int elements) {
        return reference(size, iterations, elements, 0);
    }

    /** As {@link #reference(int, long, int)}, with the journal's entries padded by {@code growLongs} longs. */
    public static long reference(int size, long iterations, int elements, int growLongs) {
        ChaosState[] ranks = new ChaosState[size];
        for (int r = 0; r < size; r++) {
            ranks[r] = initial(r, elements, ByteBuffer.allocate(8 * elements), growLongs);
        }
        long[] tokens = new long[size];
        for (long i = 1; i <= iterations; i++) {
            long global = 0;
            for (int r = 0; r < size; r++) {
                tokens[r] = ranks[r].compute(i);
                global += tokens[r];
            }
            for (int r = 0; r < size; r++) {
                ranks[r].absorb(i, tokens[(r - 1 + size) % size], global);
            }
        }
        long[] sums = new long[size];
        for (int r = 0; r < size; r++) {
            sums[r] = ranks[r].checksum();
        }
        return combine(sums);
    }
}
