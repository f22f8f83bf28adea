package io.jckpt.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves the program's class names a state graph saved, through the class loaders that can see the
 * program: the opening thread's context loader (a launched rank's program runs in its world's class
 * loader, set as the context loader), the library's, and the loader of every registered or target
 * object's class (newest first), so that a recovered world resolves the names to its own classes. JDK
 * names go through the platform loader, and only where the codec allows them (enums, array components):
 * resolving a name never initialises the class.
 */
final class ProgramClasses {
    private final List<ClassLoader> loaders = new ArrayList<>();
    private final Map<String, Class<?>> resolved = new HashMap<>();

    ProgramClasses() {
        add(ProgramClasses.class.getClassLoader());
        add(Thread.currentThread().getContextClassLoader());
    }

    private void add(ClassLoader loader) {
        if (loader != null && !loaders.contains(loader)) {
            loaders.add(0, loader);
            resolved.clear();
        }
    }

    /** @param type a class of the program (registered, or a rollback's target) */
    void useClassLoaderOf(Class<?> type) {
        add(type.getClassLoader());
    }

    /**
     * @param name a saved program class name
     * @return the class, not initialised
     * @throws GraphRefusal when no loader sees it
     */
    Class<?> resolve(String name) {
        Class<?> c = resolved.get(name);
        if (c != null) {
            return c;
        }
        for (ClassLoader loader : loaders) {
            try {
                c = Class.forName(name, false, loader);
                resolved.put(name, c);
                return c;
            } catch (ClassNotFoundException | LinkageError e) {
                // the next loader
            }
        }
        throw GraphRefusal.mismatch("an object of class " + name, "a program in which no class loader finds that class");
    }

    /**
     * @param name a JDK class name
     * @return the class, not initialised
     */
    Class<?> jdk(String name) {
        try {
            return Class.forName(name, false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw GraphRefusal.mismatch("a " + name, "a JDK without that class");
        }
    }
}
