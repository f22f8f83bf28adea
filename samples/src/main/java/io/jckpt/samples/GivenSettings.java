package io.jckpt.samples;

import io.jckpt.CkptOptions;
import io.jckpt.IntervalPolicy;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The checkpoint settings a sample's own command line gave, set on the builder only when given: a
 * builder call outranks the job's settings ({@code ckpt-run --replicas}, {@code -Djckpt.*},
 * {@code JCKPT_*}), so a sample that passed its own defaults would override the job's silently.
 */
public final class GivenSettings {
    /** How the samples' help names the fallback of a per-job setting they leave unset. */
    public static final String JOB_DEFAULT = "default: the job's, e.g. ckpt-run ";

    private GivenSettings() {
    }

    /**
     * The samples' {@code --replicas}, {@code --disk-ratio} and {@code --disk-dir}, each null unless the
     * command line gives it: a picocli mixin ({@code @Mixin GivenSettings.Options}) of every sample.
     */
    public static final class Options {
        @Option(names = "--replicas", paramLabel = "M", description = "in-memory copies on other ranks ("
                + JOB_DEFAULT + "--replicas, else 1)")
        public Integer replicas;
        @Option(names = "--disk-ratio", paramLabel = "K", description = "one disk round per this many checkpoints,"
                + " 0 = none (" + JOB_DEFAULT + "--disk-ratio, else 1000)")
        public Integer diskRatio;
        @Option(names = "--disk-dir", paramLabel = "PATH", description = "stable-storage directory ("
                + JOB_DEFAULT + "--disk, else none: no disk level)")
        public Path diskDirectory;
    }

    /**
     * @param replicas      m, or null to leave it to the job
     * @param diskRatio     k, or null to leave it to the job
     * @param diskDirectory the disk level's directory, or null to leave it to the job
     * @return a builder with only these set
     */
    public static CkptOptions.Builder builder(Integer replicas, Integer diskRatio, Path diskDirectory) {
        CkptOptions.Builder builder = CkptOptions.builder();
        if (replicas != null) {
            builder.replicas(replicas);
        }
        if (diskRatio != null) {
            builder.diskRatio(diskRatio);
        }
        if (diskDirectory != null) {
            builder.diskDirectory(diskDirectory);
        }
        return builder;
    }

    /**
     * @param builder  the builder
     * @param interval the interval policy, or null to leave it to the job
     * @param nodeMtbf the MTBF of one node, or null to leave it to the job
     * @return the builder
     */
    public static CkptOptions.Builder interval(CkptOptions.Builder builder, IntervalPolicy interval, Duration nodeMtbf) {
        if (interval != null) {
            builder.interval(interval);
        }
        if (nodeMtbf != null) {
            builder.nodeMtbf(nodeMtbf);
        }
        return builder;
    }
}
