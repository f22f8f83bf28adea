package io.jckpt.runtime.rank;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The class loader of one MPJ Express world: MPJ Express and the program's classes, with the
 * library's loader as parent. A fresh world (after a recovery) gets a fresh loader, so MPJ's static
 * state starts clean while the library's state, held by the parent, survives.
 *
 * <p>It records the names of the classes it defined, so that the loader of the next world can be
 * filled with them ahead of time ({@link WorldLoaders}): loading a class without initialising it
 * leaves no static state behind, so a preloaded loader is as fresh as a new one.
 */
public final class WorldClassLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Queue<String> defined = new ConcurrentLinkedQueue<>();

    public WorldClassLoader(String name, List<String> classPath, ClassLoader parent) {
        super(name, urls(classPath), parent);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> type = super.findClass(name);
        defined.add(name);
        return type;
    }

    /** The classes this loader defined so far, in the order it defined them. */
    List<String> definedClasses() {
        return List.copyOf(defined);
    }

    static URL[] urls(List<String> classPath) {
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath) {
            try {
                urls.add(new File(entry).toURI().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("bad class path entry " + entry, e);
            }
        }
        return urls.toArray(new URL[0]);
    }
}
