package io.jckpt.world;

/** One item of a {@link WorldState}, pointing back to its owner (a cycle through the root). */
public final class WorldItem {
    private final double value;
    private final WorldState owner;

    WorldItem(double value, WorldState owner) {
        this.value = value;
        this.owner = owner;
    }

    double value() {
        return value;
    }

    WorldState owner() {
        return owner;
    }
}
