package io.jckpt.runtime.launcher;

import io.jckpt.JobSettings;
import io.jckpt.image.ImageKey;
import io.jckpt.image.JobKeyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The job key the launcher gives every rank ({@code JCKPT_JOB_KEY}; the ranks authenticate the job's
 * checkpoints with a key derived from it): the key of the job's disk directory when the launcher knows
 * the directory ({@code --disk}, {@code JCKPT_DISK}) and the job wrote its key file there before; else,
 * for a job with an explicit {@code --job-id} (its node-local stores outlive a failed run, for a restart
 * with the same id), the key file beside those stores, {@code <memory dir>/<job id>/job.key}, made at
 * its first start and removed with the stores; else a new key for this run. A rank with the disk level
 * on keeps the key in {@code <disk>/<job id>/job.key} itself (made from this one at the first start).
 */
final class LauncherJobKey {
    private LauncherJobKey() {
    }

    /**
     * @param memoryDirectory where the launcher keeps the job's node-local stores
     * @param jobId       the job
     * @param explicitId  whether the job id was given ({@code --job-id}): the job may be restarted
     * @param diskSetting the disk directory the launcher knows of, or null
     * @param warnings    where a key file that cannot be used is reported (the run then has a key of its own)
     * @return the job key
     */
    static byte[] resolve(Path memoryDirectory, String jobId, boolean explicitId, Path diskSetting,
                          Consumer<String> warnings) {
        if (diskSetting != null) {
            Path file = diskSetting.resolve(jobId).resolve(JobKeyFile.NAME);
            if (Files.exists(file)) {
                try {
                    return JobKeyFile.read(file);
                } catch (IOException e) {
                    warnings.accept("WARNING: " + e.getMessage() + "; the ranks will say whether they can use it");
                }
            }
        }
        if (explicitId) {
            Path file = memoryDirectory.resolve(jobId).resolve(JobKeyFile.NAME);
            try {
                return JobKeyFile.readOrCreate(file, ImageKey.newJobKey());
            } catch (IOException e) {
                warnings.accept("WARNING: " + e.getMessage() + "; this run has a key of its own: node-local"
                        + " checkpoints of an earlier run of job " + jobId + " will be refused");
            }
        }
        return ImageKey.newJobKey();
    }

    /** @return the disk directory the launcher's settings name, or null */
    static Path diskDirectory(JobSettings settings) {
        return settings.lookup(JobSettings.Setting.DISK).map(v -> Path.of(v.text())).orElse(null);
    }
}
