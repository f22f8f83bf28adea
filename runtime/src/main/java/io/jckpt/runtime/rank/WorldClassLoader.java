package io.jckpt.runtime.rank;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The class loader of one MPJ Express world: MPJ Express and the program's classes, with the
 * library's loader as parent. A fresh world (after a recovery) gets a fresh loader, so MPJ's static
 * state starts clean while the library's state, held by the parent, survives.
 */
public final class WorldClassLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    public WorldClassLoader(String name, List<String> classPath, ClassLoader parent) {
        super(name, urls(classPath), parent);
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
