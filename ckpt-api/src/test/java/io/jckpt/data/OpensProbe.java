package io.jckpt.data;

import io.jckpt.UnsupportedDataException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.HashMap;
import java.util.Random;

/**
 * The program {@link JavaUtilOpensTest} runs in a JVM of its own, with or without the flag that opens
 * java.util: it registers an object holding a Random and a HashMap, checkpoints, draws, rolls back and
 * prints the next draw, or prints the refusal.
 */
public final class OpensProbe {
    private OpensProbe() {
    }

    /** The program's state. */
    static final class State {
        final Random rng = new Random(11);
        final HashMap<String, Long> seen = new HashMap<>();
    }

    public static void main(String[] args) {
        TagRegistry reg = new TagRegistry(DataAdapters.builder().rank(0).build());
        State s = new State();
        s.seen.put("a", s.rng.nextLong());
        try {
            reg.register("state", s);
        } catch (UnsupportedDataException e) {
            System.out.println("refused: " + e.getMessage());
            return;
        }
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 16);
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(0, 1, 1, 0));
        ImageSeals.seal(store, 0);
        ImageReader image = ImageSeals.open(store, 0);
        Random alias = s.rng;
        long expected = new Random(11) { { nextLong(); } }.nextLong();
        alias.nextLong();
        image.restore("state", s, reg.adapters());
        System.out.println("restored: next " + (alias.nextLong() == expected) + " map " + s.seen.size());
        store.releaseLast();
    }
}
