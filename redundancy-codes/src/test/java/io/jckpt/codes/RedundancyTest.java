package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The option's forms, its errors, and the memory each form holds for other ranks. */
class RedundancyTest {
    @Test
    void parsesTheThreeForms() {
        assertEquals(Redundancy.copies(1), Redundancy.parse("--redundancy", "copies:1"));
        assertEquals(Redundancy.xor(8), Redundancy.parse("--redundancy", " XOR:8 "));
        assertEquals(Redundancy.rs(8, 2), Redundancy.parse("--redundancy", "rs:8+2"));
        assertEquals("rs:8+2", Redundancy.rs(8, 2).toString());
        assertEquals(10, Redundancy.rs(8, 2).setSize());
        assertEquals(8, Redundancy.xor(8).setSize());
        assertEquals(2, Redundancy.rs(8, 2).lossesSurvived());
        assertEquals(1, Redundancy.xor(8).lossesSurvived());
    }

    @Test
    void badValuesNameTheOptionAndTheValue() {
        assertEquals("--redundancy 'raid5': expected copies:M, xor:K or rs:K+P (e.g. copies:1, xor:8, rs:8+2)",
                assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("--redundancy", "raid5")).getMessage());
        assertEquals("JCKPT_REDUNDANCY 'rs:8': rs needs its parity count, rs:K+P (e.g. rs:8+2)",
                assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("JCKPT_REDUNDANCY", "rs:8")).getMessage());
        assertEquals("--redundancy 'xor:4+1': xor takes one number (e.g. xor:4)",
                assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("--redundancy", "xor:4+1")).getMessage());
        assertEquals("--redundancy 'xor:1': xor:K needs sets of 2 to 256 ranks, not K = 1",
                assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("--redundancy", "xor:1")).getMessage());
        assertEquals("jckpt.redundancy 'rs:8+0': rs:K+P needs K >= 1, P >= 1 and K + P <= 256 (sets of K + P ranks), not K = 8, P = 0",
                assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("jckpt.redundancy", "rs:8+0")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("--redundancy", "rs:250+7"));
        assertThrows(IllegalArgumentException.class, () -> Redundancy.parse("--redundancy", null));
    }

    @Test
    void memoryHeldForOthersPerByteOfImage() {
        assertEquals(1.0, Redundancy.copies(1).heldForOthers());
        assertEquals(2.0, Redundancy.copies(2).heldForOthers());
        assertEquals(1.0 / 7, Redundancy.xor(8).heldForOthers());
        assertEquals(1.0 / 3, Redundancy.xor(4).heldForOthers());
        assertEquals(0.25, Redundancy.rs(8, 2).heldForOthers());
        assertEquals(0.5, Redundancy.rs(4, 2).heldForOthers());
        // the layout holds exactly that: p · ceil(image / k) per member for equal images
        for (Redundancy r : new Redundancy[] {Redundancy.xor(8), Redundancy.rs(8, 2), Redundancy.rs(4, 2)}) {
            ParityLayoutDescriptor layout = r.layout(r.setSize());
            long image = 7L * 8 * 4096;
            assertEquals(Math.round(image * r.heldForOthers()), layout.parityLength(layout.chunkLength(image)), r.toString());
        }
        assertThrows(IllegalStateException.class, () -> Redundancy.copies(1).layout(4));
    }
}
