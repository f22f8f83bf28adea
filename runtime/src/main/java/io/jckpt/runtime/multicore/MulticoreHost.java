package io.jckpt.runtime.multicore;

import io.jckpt.runtime.rank.RankEnvironment;
import io.jckpt.runtime.rank.WorldClassLoader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The one JVM of a multicore (MPJ Express smpdev) job: every rank is a thread with its own class
 * loader (MPJ's mpi/mpjdev, the library and the program), over a shared loader holding smpdev,
 * xdev, mpjbuf and mpiExp, whose static state the ranks share. Each rank has its own control
 * connection to the launcher, so the launcher sees ranks, not threads. A rank that throws ends the
 * whole JVM (fail-fast): ranks of one JVM cannot fail separately.
 */
public final class MulticoreHost {
    private static final int EXIT_FAILED = 1;
    private static final String RANK_SERVICES = "io.jckpt.runtime.rank.RankServices";

    private MulticoreHost() {
    }

    public static void main(String[] args) throws Exception {
        RankEnvironment env = RankEnvironment.current();
        int size = env.size();
        String mainClass = args[0];
        String[] programArgs = Arrays.copyOfRange(args, 1, args.length);
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        System.setOut(new PrintStream(new LinePrefixingStream(realOut), true, "UTF-8"));
        System.setErr(new PrintStream(new LinePrefixingStream(realErr), true, "UTF-8"));

        List<String> mpj = env.classPath(RankEnvironment.MPJ_CLASSPATH);
        List<String> shared = new ArrayList<>();
        List<String> perRank = new ArrayList<>();
        for (String jar : mpj) {
            String name = java.nio.file.Paths.get(jar).getFileName().toString();
            if (name.startsWith("mpi-") || name.startsWith("mpjdev-")) {
                perRank.add(jar);
            } else if (!name.startsWith("mpj-") && !name.startsWith("niodev-")) {
                shared.add(jar); // smpdev, xdev, mpjbuf, mpiExp, runtimecommon, starter, log4j
            }
        }
        perRank.addAll(env.classPath(RankEnvironment.LIB_CLASSPATH));
        perRank.addAll(env.classPath(RankEnvironment.APP_CLASSPATH));
        ClassLoader sharedLoader = new WorldClassLoader("mpj-shared", shared, ClassLoader.getPlatformClassLoader());
        Class<?> groupType = Class.forName("xdev.smpdev.SMPDevProcess", true, sharedLoader);

        CountDownLatch done = new CountDownLatch(size);
        Thread[] threads = new Thread[size];
        for (int rank = 0; rank < size; rank++) {
            final int r = rank;
            ThreadGroup group = (ThreadGroup) groupType.getConstructor(String.class).newInstance("MPI" + rank);
            threads[rank] = new Thread(group, () -> runRank(r, size, mainClass, programArgs, perRank,
                    sharedLoader, done), Integer.toString(size));
            threads[rank].setName(Integer.toString(rank)); // smpdev reads the rank from the thread name
        }
        for (Thread thread : threads) {
            thread.start();
        }
        done.await();
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void runRank(int rank, int size, String mainClass, String[] programArgs, List<String> classPath,
                                ClassLoader sharedLoader, CountDownLatch done) {
        LinePrefixingStream.setRank(rank);
        try {
            WorldClassLoader loader = new WorldClassLoader("mpj-rank-" + rank, classPath, sharedLoader);
            Thread.currentThread().setContextClassLoader(loader);
            // everything of the rank, control channel included, lives in the rank's own loader
            Class<?> services = Class.forName(RANK_SERVICES, true, loader);
            services.getMethod("runMulticoreRank", int.class, int.class, String.class, String[].class)
                    .invoke(null, rank, size, mainClass, programArgs);
            done.countDown();
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException ? t.getCause() : t;
            System.err.println("rank " + rank + ": " + mainClass + " threw " + cause);
            cause.printStackTrace();
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_FAILED);
        }
    }



}
