package io.jckpt.world;

import java.util.ArrayList;
import java.util.List;

/**
 * A program's data, compiled and loaded by {@code ClassLoaderRollbackTest} in a class loader of its own (as the
 * launcher's world class loader loads a program): only JDK classes besides its own package.
 */
public final class WorldState {
    private final List<Object> items = new ArrayList<>();
    private Object last;
    private int rounds;

    /** @return a state with {@code n} items */
    public static WorldState create(int n) {
        WorldState s = new WorldState();
        for (int i = 0; i < n; i++) {
            s.bump();
        }
        return s;
    }

    /** One round: a new item, remembered as the last. */
    public void bump() {
        WorldItem item = new WorldItem(rounds * 1.5, this);
        items.add(item);
        last = item;
        rounds++;
    }

    /** @return the state as text, with the loader of every class in it */
    public String describe() {
        StringBuilder b = new StringBuilder("rounds=" + rounds + " items=[");
        for (Object o : items) {
            WorldItem item = (WorldItem) o;
            b.append(item.value()).append(item.owner() == this ? "" : " (owner is not this)").append(',');
        }
        return b.append("] last=").append(((WorldItem) last).value()).toString();
    }

    /** @return the classes of the objects it holds */
    public List<Class<?>> heldClasses() {
        List<Class<?>> classes = new ArrayList<>();
        for (Object o : items) {
            classes.add(o.getClass());
        }
        classes.add(last.getClass());
        return classes;
    }
}
