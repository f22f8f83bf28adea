package io.jckpt.disk;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A rank process for the crash tests, started with the test class path and killed with SIGKILL.
 * Arguments: mode root jobId rank worldSize round length. Prints "STALLED" when it reached the
 * point where it is meant to be killed and then sleeps (bounded: it exits by itself after 2 minutes).
 */
public final class CrashingRankMain {
    private static final long STALL_MILLIS = TimeUnit.MINUTES.toMillis(2);

    private CrashingRankMain() {
    }

    /**
     * @param args mode root jobId rank worldSize round length
     * @throws Exception anything, the test sees the exit code
     */
    public static void main(final String[] args) throws Exception {
        final String mode = args[0];
        final Path root = Path.of(args[1]);
        final String jobId = args[2];
        final int rank = Integer.parseInt(args[3]);
        final int worldSize = Integer.parseInt(args[4]);
        final long round = Long.parseLong(args[5]);
        final int length = Integer.parseInt(args[6]);
        // 1 MiB chunks: the stalling image stops after the first one, with the file partly written
        DiskStoreConfig config = DiskStoreConfig.of(root, jobId, rank, worldSize).withWriteChunkSize(1 << 20);
        switch (mode) {
            case "write" -> {
                GenerationStore.open(config).write(round, CheckpointImage.of(TestImages.direct(TestImages.seed(round, rank), length)));
                say("DONE");
            }
            case "commit" -> {
                GenerationStore.open(config).commit(round, worldSize);
                say("DONE");
            }
            case "stall-write" -> GenerationStore.open(config).write(round, stallingImage(round, rank, length));
            case "stall-flush" -> {
                final DiskFlusher flusher = DiskFlusher.start(GenerationStore.open(config), OverlapPolicy.COALESCE, FlushListener.NONE);
                flusher.submit(round, stallingImage(round, rank, length));
                Thread.sleep(STALL_MILLIS);
                flusher.close();
            }
            case "stall-marker" -> {
                config = config.withChannelOpener((path, options, attributes) -> {
                    final FileChannel channel = FileChannel.open(path, options, attributes);
                    if (!path.getFileName().toString().endsWith(".commit.tmp")) {
                        return channel;
                    }
                    return new FaultyFileChannel(channel, (delegate, src, position) -> {
                        final ByteBuffer half = src.duplicate();
                        half.limit(half.position() + half.remaining() / 2);
                        delegate.write(half, position);
                        delegate.force(true);
                        say("STALLED");
                        sleep();
                    });
                });
                GenerationStore.open(config).commit(round, worldSize);
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    /** An image that stalls after its first chunk was handed over: the file is partly written. */
    private static CheckpointImage stallingImage(final long round, final int rank, final int length) {
        final CheckpointImage image = CheckpointImage.of(TestImages.direct(TestImages.seed(round, rank), length));
        return new CheckpointImage() {
            @Override
            public long length() {
                return image.length();
            }

            @Override
            public ByteBuffer region(final long offset, final int regionLength) {
                if (offset > 0) {
                    say("STALLED");
                    sleep();
                }
                return image.region(offset, regionLength);
            }
        };
    }

    private static void say(final String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void sleep() {
        try {
            Thread.sleep(STALL_MILLIS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("not killed in time");
    }

}
