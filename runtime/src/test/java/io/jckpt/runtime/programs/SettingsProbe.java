package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import mpi.MPI;

/**
 * Opens with the job's settings and prints what is in effect, for the test of their precedence:
 * {@code SettingsProbe [diskRatio]} sets the disk ratio explicitly (the program's builder call) when
 * given; every other setting comes from the job. Each rank takes one checkpoint and prints
 * {@code effective replicas=M diskRatio=K maxMemory=B memoryDir=D diskLevelRatio=R}, then the rank
 * JVM's system properties {@code jckpt.test.site} and {@code jckpt.test.both} ({@code JCKPT_JVM_OPTS} vs {@code --jvm-opt}).
 */
public final class SettingsProbe {
    private SettingsProbe() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        CkptOptions.Builder builder = CkptOptions.builder();
        if (appArgs.length > 0) {
            builder.diskRatio(Integer.parseInt(appArgs[0]));
        }
        CkptOptions options = builder.build();
        Ckpt.open(options);
        long[] data = {MPI.COMM_WORLD.Rank()};
        Ckpt.register("data", data);
        Ckpt.here();
        CkptStats stats = Ckpt.stats();
        // the ratio asked for, and the disk level's own (0 when the level is off: no disk directory)
        System.out.println("effective replicas=" + stats.replicas() + " diskRatio=" + options.diskRatio()
                + " maxMemory=" + options.maxMemoryBytes() + " memoryDir=" + options.memoryDirectory()
                + " diskLevelRatio=" + stats.diskRatio() + " interval=" + options.interval()
                + " site=" + System.getProperty("jckpt.test.site") + " both=" + System.getProperty("jckpt.test.both"));
        Ckpt.close();
        MPI.Finalize();
    }
}
