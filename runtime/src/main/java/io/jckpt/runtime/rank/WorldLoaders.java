package io.jckpt.runtime.rank;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands out the class loader of each MPJ world a rank enters, prepared ahead of time when it can:
 * a spare loader is filled in the background (classes loaded, verified and linked, never
 * initialised) so that re-entering the program after a failure does not pay for reading, defining
 * and verifying MPJ Express's classes on the recovery's critical path.
 *
 * <p>Survivors fill the spare with the classes their current world defined, some time after the
 * world started (not while the world is starting and every rank needs the CPU); a warm standby
 * fills its first loader with every class of the MPJ Express jars and the program's main class.
 * One preloader thread at a time, daemon, named, stopped when its loader is taken.
 */
final class WorldLoaders {
    /** How long after a world started its successor's loader is prepared. */
    static final long PREPARE_DELAY_MILLIS = 2_000;

    private final List<String> classPath;
    private final ClassLoader parent;
    private final int rank;
    private Preloader spare;

    WorldLoaders(List<String> classPath, ClassLoader parent, int rank) {
        this.classPath = List.copyOf(classPath);
        this.parent = parent;
        this.rank = rank;
    }

    /** A new loader for a world; not yet used by anything. */
    WorldClassLoader fresh(String name) {
        return new WorldClassLoader(name, classPath, parent);
    }

    /**
     * The loader for the world of {@code epoch}: the prepared spare when there is one (its
     * preloading stopped where it is), else a fresh one.
     */
    synchronized WorldClassLoader take(int epoch) {
        Preloader prepared = spare;
        spare = null;
        if (prepared != null) {
            prepared.stop();
            return prepared.loader;
        }
        return fresh("mpj-world-" + epoch);
    }

    /**
     * Adopts a loader filled elsewhere (by a standby's warm-up) as the spare for the next world.
     */
    synchronized void adopt(WorldClassLoader loader) {
        spare = new Preloader(loader, 0, "jckpt-world-preloader-" + rank);
    }

    /**
     * Prepares the next world's loader in the background, {@code delayMillis} from now, with the
     * classes {@code current} will have defined by then.
     */
    synchronized void prepareNext(WorldClassLoader current, int nextEpoch, long delayMillis) {
        if (spare != null) {
            spare.stop();
        }
        spare = new Preloader(fresh("mpj-world-" + nextEpoch), delayMillis,
                "jckpt-world-preloader-" + rank);
        spare.start(current);
    }

    /** The spare loader being prepared, or {@code null}; it stays the spare. */
    synchronized WorldClassLoader peekSpare() {
        return spare == null ? null : spare.loader;
    }

    /** Stops any preloading (the rank is ending). */
    synchronized void stop() {
        if (spare != null) {
            spare.stop();
        }
    }

    /** Every class in the jars of a class path, by name (directories are skipped). */
    static List<String> classesIn(List<String> classPath) {
        List<String> names = new ArrayList<>();
        for (String entry : classPath) {
            File file = new File(entry);
            if (!file.isFile()) {
                continue; // directories: only the program's classes, loaded on demand
            }
            try (JarFile jar = new JarFile(file)) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    String name = e.nextElement().getName();
                    if (name.endsWith(".class") && !name.contains("-") && !name.startsWith("META-INF/")) {
                        names.add(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
                    }
                }
            } catch (IOException e) {
                // an unreadable jar fails the world's MPI.Init with a clear error later; nothing to preload
            }
        }
        return names;
    }

    /**
     * Loads {@code names} into {@code loader} without initialising them; stops early when
     * {@code stopped} says so. Classes that cannot be loaded (optional dependencies) are skipped:
     * the program would meet the same error when it needs them.
     *
     * @return how many classes were loaded
     */
    static int preload(ClassLoader loader, List<String> names, java.util.function.BooleanSupplier stopped) {
        int loaded = 0;
        for (String name : names) {
            if (stopped.getAsBoolean()) {
                break;
            }
            try {
                Class.forName(name, false, loader);
                loaded++;
            } catch (ClassNotFoundException | LinkageError e) {
                // not loadable here: the program never gets further with it either
            }
        }
        return loaded;
    }

    /** One spare loader and the thread filling it. */
    private static final class Preloader {
        final WorldClassLoader loader;
        private final long delayMillis;
        private final String threadName;
        private volatile boolean stopped;
        private Thread thread;

        Preloader(WorldClassLoader loader, long delayMillis, String threadName) {
            this.loader = loader;
            this.delayMillis = delayMillis;
            this.threadName = threadName;
        }

        void start(WorldClassLoader current) {
            thread = new Thread(() -> {
                // let the world start first (every rank needs the CPU then); parked, not interrupted:
                // an interrupt inside class loading could break the loader's jar access
                long until = System.nanoTime() + delayMillis * 1_000_000L;
                for (long left = delayMillis * 1_000_000L; left > 0 && !stopped; left = until - System.nanoTime()) {
                    LockSupport.parkNanos(this, left);
                }
                preload(loader, current.definedClasses(), () -> stopped);
            }, threadName);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            stopped = true;
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }
    }
}
