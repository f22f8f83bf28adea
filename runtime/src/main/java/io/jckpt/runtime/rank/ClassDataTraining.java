package io.jckpt.runtime.rank;

import io.jckpt.CkptOptions;

import java.nio.file.Path;
import java.util.List;

/**
 * The training run of the library's class-data-sharing archive: {@code bin/build} starts it once with
 * {@code -XX:ArchiveClassesAtExit} over the rank JVMs' library class path, and the JVM writes the
 * classes it loaded to the archive when this program exits. Rank and standby JVMs map that archive
 * instead of loading and verifying the same few thousand classes (Chronicle, Kryo, JNR, both levels)
 * from their jars again ({@link io.jckpt.runtime.launcher.JckptHome#classDataSharing()}).
 *
 * <p>What it runs is the standby's rehearsal ({@link StandbyWarmup}: open, register, here() with
 * ring replication and a disk generation, a recovery with a transfer, rollback, close; two ranks as
 * threads in a scratch directory it deletes), then the rank-side classes a standby preloads and a
 * rank's entry classes.
 */
public final class ClassDataTraining {
    private ClassDataTraining() {
    }

    /**
     * @param args optional: the scratch directory (default: under the default memory directory)
     */
    public static void main(String[] args) {
        Path scratch = args.length > 0 ? Path.of(args[0])
                : CkptOptions.defaultMemoryDirectory().resolve("cds-training-" + ProcessHandle.current().pid());
        String incomplete = StandbyWarmup.rehearse(scratch, RankEnvironment.current().hostAddress());
        Standby.preloadRankClasses(); // what a standby loads before it says it is ready
        for (Class<?> type : List.of(RankMain.class, WorldClassLoader.class)) {
            // a rank JVM's own entry: loaded (not initialised) is all the archive keeps
            try {
                Class.forName(type.getName(), false, ClassDataTraining.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e); // this jar is broken
            }
        }
        if (incomplete != null) {
            // the archive is still valid, only smaller: say so, do not fail the build
            System.err.println("class-data training incomplete: " + incomplete);
        }
        System.exit(0); // the archive is written at exit; the rehearsal's daemon threads must not hold it up
    }
}
