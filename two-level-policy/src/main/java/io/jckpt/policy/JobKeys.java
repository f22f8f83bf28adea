package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.StorageException;
import io.jckpt.image.ImageKey;
import io.jckpt.image.JobKeyFile;
import io.jckpt.spi.RankContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which key a rank authenticates the job's checkpoints with, decided at open (the rule, for users:
 * {@code docs/design.md}, "Authenticated checkpoints"):
 * <ol>
 *   <li>the disk level on: the key file {@code <disk>/<job id>/job.key}, made at the job's first start
 *   (from the launcher's key when there is one): every later start of the job, on any hosts, reads it,
 *   so a restart from disk after every node was lost verifies the job's own files;</li>
 *   <li>else the launcher's key ({@link RankContext#ENV_JOB_KEY}: the launcher keeps it for a job with
 *   an explicit {@code --job-id}, whose node-local stores outlive a failed run);</li>
 *   <li>else, a program run without the launcher: {@link RankContext#ENV_JOB_KEY} if set, else the key
 *   file {@code <memory directory>/<job id>/job.key} beside the node-local stores, made at the first
 *   start.</li>
 * </ol>
 * Every rank must end with the same key (the open exchange checks its id). The key is never logged.
 */
final class JobKeys {
    private static final Logger LOG = LoggerFactory.getLogger(JobKeys.class);

    /**
     * @param key    the image key
     * @param source where the job key came from, for the open's line (no key material)
     */
    record Resolved(ImageKey key, String source) {
    }

    private JobKeys() {
    }

    /**
     * @param options  the rank's options
     * @param context  the rank
     * @param launched the launcher's job key, or null (no launcher, or none given)
     * @param env      the environment, for {@link RankContext#ENV_JOB_KEY} without a launcher key
     * @return the key to seal and verify with
     * @throws StorageException naming the key file when none can be used
     */
    static Resolved resolve(CkptOptions options, RankContext context, byte[] launched, Map<String, String> env) {
        byte[] given = launched;
        String givenBy = "the launcher's job key";
        if (given == null) {
            String hex = env.get(RankContext.ENV_JOB_KEY);
            if (hex != null && !hex.isBlank()) {
                try {
                    given = JobKeyFile.parse(hex, "the environment variable " + RankContext.ENV_JOB_KEY);
                } catch (IllegalArgumentException e) {
                    throw new CkptException("rank " + context.rank() + ": " + e.getMessage());
                }
                givenBy = "the environment variable " + RankContext.ENV_JOB_KEY;
            }
        }
        if (options.diskLevelEnabled()) {
            Path file = options.diskDirectory().resolve(context.jobId()).resolve(JobKeyFile.NAME);
            try {
                byte[] key = JobKeyFile.readOrCreate(file, given != null ? given : ImageKey.newJobKey());
                return new Resolved(ImageKey.derive(key), "the key file " + file);
            } catch (IOException e) {
                if (given == null) {
                    throw new StorageException(file, "rank " + context.rank() + ": the job's key file cannot be used"
                            + " (checkpoints are authenticated with it)", e);
                }
                // the disk directory is unusable: the open's disk check decides whether the job runs without it
                LOG.warn("rank {}: {}; authenticating with {}", context.rank(), e.getMessage(), givenBy);
            }
        }
        if (given != null) {
            return new Resolved(ImageKey.derive(given), givenBy);
        }
        Path file = options.memoryDirectory().resolve(context.jobId()).resolve(JobKeyFile.NAME);
        try {
            return new Resolved(ImageKey.derive(JobKeyFile.readOrCreate(file, ImageKey.newJobKey())), "the key file " + file);
        } catch (IOException e) {
            throw new StorageException(file, "rank " + context.rank() + ": the job's key file cannot be used"
                    + " (checkpoints are authenticated with it)", e);
        }
    }
}
