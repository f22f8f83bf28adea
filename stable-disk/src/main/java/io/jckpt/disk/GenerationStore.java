package io.jckpt.disk;

import io.jckpt.wire.GenerationStatus;
import io.jckpt.wire.Integrity;
import io.jckpt.wire.RankInventory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.zip.CRC32C;

import io.jckpt.image.ImageMac;
import org.apache.commons.io.FileUtils;
import org.apache.commons.io.file.PathUtils;
import org.apache.commons.io.filefilter.RegexFileFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's view of the job's stable-disk directory (see {@link GenerationLayout}): writes this
 * rank's file of a round crash-safely, commits a round as the coordinator, lists what this rank
 * holds, reads a committed image back after verifying it, and deletes generations no longer kept.
 *
 * <h2>Life of a generation</h2>
 * <ol>
 *   <li><b>pending</b>: each rank {@link #write}s its file: temporary name, large sequential writes
 *   with the CRC32C computed on the way, header last, one {@code force}, atomic rename onto a new
 *   name, directory {@code fsync}. Returned normally means durable on this rank.</li>
 *   <li><b>completed</b> (committed): after every rank confirmed (the exchange is the caller's), one
 *   coordinator calls {@link #commit}; it checks every rank's file is present and well formed, then
 *   writes a commit marker the same crash-safe way. The marker vouches for each rank's file by its
 *   image length and CRC, so a file replaced later is detected. A crash at any earlier point leaves
 *   no marker, so the round simply never counts.</li>
 *   <li><b>retired</b>: two committed generations of different rounds are kept. Committing round N
 *   retracts the markers older than the newest committed round below N, and markers above N
 *   (left by a timeline abandoned by a rollback); each rank deletes its own retired files
 *   asynchronously ({@link DiskFlusher} after each flush, or {@link #pruneOwnFiles}).</li>
 * </ol>
 * Thread safety: the store keeps no mutable state of its own; methods may be called from any
 * thread, but {@link #write} and {@link #pruneOwnFiles} of one rank belong to one thread at a time
 * (the rank's flusher).
 *
 * <p><b>Size</b> (past 600 lines): the two-generation protocol (write, force, rename, commit marker,
 * verification, retraction, pruning) is kept in one class so that its crash-safety argument can be read
 * in one place; a third of it is that Javadoc.
 */
public final class GenerationStore {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationStore.class);
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_FILE_ATTRIBUTE =
        PosixFilePermissions.asFileAttribute(OWNER_FILE);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_DIR_ATTRIBUTE =
        PosixFilePermissions.asFileAttribute(OWNER_DIR);
    private static final Set<StandardOpenOption> CREATE_FOR_WRITE =
        EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    private static final int VERIFY_CHUNK = 1 << 20;
    /** Committed generations of different rounds that are kept. */
    public static final int KEPT_COMMITTED_GENERATIONS = 2;

    private final DiskStoreConfig config;
    private final GenerationLayout layout;

    private GenerationStore(final DiskStoreConfig config) {
        this.config = config;
        this.layout = new GenerationLayout(config.root(), config.jobId());
    }

    /**
     * Opens the store: creates the job directory if it can (owner only) and removes temporary
     * files this rank left behind when it was killed mid-write. Never fails for an unusable
     * directory (that is logged; each {@link #write} tries again and reports it).
     *
     * @param config where and as whom
     * @return the store
     */
    public static GenerationStore open(final DiskStoreConfig config) {
        final GenerationStore store = new GenerationStore(config);
        try {
            store.ensureDirectory();
            store.removeStaleTemporaries();
        } catch (final DiskWriteFailedException e) {
            LOG.warn("stable-disk directory not usable yet, each disk round will retry: {}", e.getMessage());
        }
        return store;
    }

    /**
     * Opens the store like {@link #open}, but fails when its directory cannot be used: it cannot be
     * created, or a file cannot be created in it (probed with a file this rank creates and deletes).
     *
     * @param config where and as whom
     * @return the store
     * @throws DiskWriteFailedException naming the directory and why (not writable, no space, ...)
     */
    public static GenerationStore openUsable(final DiskStoreConfig config) throws DiskWriteFailedException {
        final GenerationStore store = new GenerationStore(config);
        store.ensureDirectory();
        final Path directory = store.layout.jobDirectory();
        final Path probe = directory.resolve(".probe-rank-" + config.rank() + "-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(probe);
            Files.createFile(probe, OWNER_FILE_ATTRIBUTE);
            Files.delete(probe);
        } catch (final IOException | UnsupportedOperationException e) {
            FileUtils.deleteQuietly(probe.toFile());
            throw classify(e, directory, "stable-disk directory cannot be written");
        }
        store.removeStaleTemporaries();
        return store;
    }

    /**
     * @return the configuration
     */
    public DiskStoreConfig config() {
        return config;
    }

    /**
     * @return the directory layout
     */
    public GenerationLayout layout() {
        return layout;
    }

    /**
     * Writes this rank's file of a round, durably (see the class comment). On failure the temporary
     * file is removed and the previous generations are untouched.
     *
     * @param round the round, not negative
     * @param image the image; not released by this method
     * @return what was written
     * @throws DiskWriteFailedException naming the path, with the reason (no space, not writable, ...)
     */
    public FlushedGeneration write(final long round, final CheckpointImage image) throws DiskWriteFailedException {
        checkRound(round);
        final long start = System.nanoTime();
        ensureDirectory();
        final Path temp = layout.rankTempFile(round, config.rank());
        final Path target = layout.rankFile(round, config.rank());
        final long length = image.length();
        final int imageCrc;
        Path failedAt = temp;
        try {
            Files.deleteIfExists(temp);
            try (FileChannel channel = config.channelOpener().open(temp, CREATE_FOR_WRITE, OWNER_FILE_ATTRIBUTE)) {
                // a zero header first keeps the file's blocks allocated in order (one extent);
                // the real header, known once the image CRC is, overwrites it before the force
                writeFully(channel, ByteBuffer.allocate(DiskFileDescriptor.HEADER_LENGTH), 0);
                imageCrc = writeImage(channel, image, length);
                final ByteBuffer header = DiskFileDescriptor.encode(new RankFileHeader(config.jobId(), config.rank(),
                    config.worldSize(), round, length, imageCrc, 0, config.epoch()));
                writeFully(channel, header, 0);
                channel.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            failedAt = layout.jobDirectory();
            forceDirectory(layout.jobDirectory());
        } catch (final IOException | RuntimeException e) {
            FileUtils.deleteQuietly(temp.toFile());
            throw classify(e, failedAt,
                "stable-disk write of round " + round + " by rank " + config.rank() + " failed, previous generations untouched");
        }
        return new FlushedGeneration(round, target, length, imageCrc, System.nanoTime() - start);
    }

    /**
     * Commits a round, run by one coordinator rank after every rank confirmed its file durable:
     * checks each rank's file is present, well formed and written in this store's epoch
     * ({@link DiskStoreConfig#epoch()}), writes the commit marker durably, then retracts the markers
     * no longer kept.
     *
     * @param round     the round
     * @param worldSize the number of ranks that wrote it
     * @return the marker written
     * @throws CommitRefusedException   if a rank's file is missing, malformed or of another epoch (nothing written)
     * @throws DiskWriteFailedException if the marker cannot be written (nothing committed)
     */
    public CommitMarker commit(final long round, final int worldSize) throws StableDiskException {
        checkRound(round);
        if (worldSize < 1 || worldSize > CommitMarkerDescriptor.MAX_WORLD_SIZE) {
            throw new IllegalArgumentException("world size " + worldSize);
        }
        final List<String> problems = new ArrayList<>();
        final List<CommitMarker.RankEntry> entries = new ArrayList<>(worldSize);
        for (int rank = 0; rank < worldSize; rank++) {
            final Path path = layout.rankFile(round, rank);
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                final RankFileHeader header = readCheckedHeader(channel, path, round, rank, worldSize);
                if (header.epoch() != config.epoch()) {
                    // fencing: a file of another world (a rank declared failed, still writing; or this
                    // round's file of the world before a recovery, not yet rewritten) is never vouched for
                    problems.add("rank " + rank + " file written in epoch " + header.epoch() + ", not this commit's epoch "
                        + config.epoch() + " (" + path.getFileName() + ")");
                    continue;
                }
                entries.add(new CommitMarker.RankEntry(header.imageLength(), header.imageCrc(), header.headerCrc()));
            } catch (final NoSuchFileException e) {
                problems.add("rank " + rank + " file missing (" + path.getFileName() + ")");
            } catch (final IOException e) {
                problems.add("rank " + rank + ": " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new CommitRefusedException(layout.jobDirectory(), round, problems);
        }
        final CommitMarker marker = new CommitMarker(config.jobId(), round, worldSize, System.currentTimeMillis(), entries);
        final Path temp = layout.markerTempFile(round);
        try {
            Files.deleteIfExists(temp);
            try (FileChannel channel = config.channelOpener().open(temp, CREATE_FOR_WRITE, OWNER_FILE_ATTRIBUTE)) {
                writeFully(channel, CommitMarkerDescriptor.encode(marker), 0);
                channel.force(true);
            }
            Files.move(temp, layout.markerFile(round), StandardCopyOption.ATOMIC_MOVE);
            forceDirectory(layout.jobDirectory());
        } catch (final IOException | RuntimeException e) {
            FileUtils.deleteQuietly(temp.toFile());
            throw classify(e, temp, "commit marker of round " + round + " not written, round not committed");
        }
        LOG.info("stable-disk round {} committed ({} ranks, job {})", round, worldSize, config.jobId());
        retractMarkers(round);
        return marker;
    }

    /**
     * Reads and verifies a commit marker.
     *
     * @param round the round
     * @return the marker, or empty if the round has none
     * @throws DiskFileCorruptException if the marker is there but damaged or of another job/round
     */
    public Optional<CommitMarker> readMarker(final long round) throws DiskFileCorruptException {
        final Path path = layout.markerFile(round);
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (final NoSuchFileException e) {
            return Optional.empty();
        } catch (final IOException e) {
            throw new DiskFileCorruptException(DiskFileDamage.TRUNCATED, path, "unreadable: " + e);
        }
        final CommitMarker marker = CommitMarkerDescriptor.decode(ByteBuffer.wrap(bytes), path);
        if (!marker.jobId().equals(config.jobId())) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_JOB, path,
                "marker of job '" + marker.jobId() + "', expected '" + config.jobId() + "'");
        }
        if (marker.round() != round) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_ROUND, path,
                "marker of round " + marker.round() + ", its name says " + round);
        }
        return Optional.of(marker);
    }

    /**
     * @param round a round
     * @return whether the round has a valid commit marker
     */
    public boolean isCommitted(final long round) {
        try {
            return readMarker(round).isPresent();
        } catch (final DiskFileCorruptException e) {
            return false;
        }
    }

    /**
     * @return the rounds with a valid commit marker, newest first
     */
    public List<Long> committedRounds() {
        final List<Long> rounds = new ArrayList<>();
        for (final long round : markerRounds()) {
            if (isCommitted(round)) {
                rounds.add(round);
            }
        }
        return rounds;
    }

    /**
     * What this rank holds: every round with a commit marker (newest first, at most
     * {@link RankInventory#MAX_ENTRIES}), each with the integrity of this rank's own file, fully
     * verified (image CRC included).
     *
     * @return the inventory to exchange with the other ranks
     */
    public RankInventory inventory() {
        final List<GenerationStatus> statuses = new ArrayList<>();
        for (final long round : markerRounds()) {
            if (statuses.size() == RankInventory.MAX_ENTRIES) {
                break;
            }
            statuses.add(status(round));
        }
        return new RankInventory(config.jobId(), config.rank(), config.worldSize(), statuses);
    }

    /**
     * @param round a round with a commit marker
     * @return this rank's image length in it
     * @throws StableDiskException if the round is not committed
     */
    public long imageLength(final long round) throws StableDiskException {
        return requireCommitted(round).ranks().get(config.rank()).imageLength();
    }

    /**
     * Reads this rank's image of a committed round into {@code dst} (from its position on),
     * verifying everything before it returns; on success the position has moved by the image length.
     *
     * @param round a committed round
     * @param dst   where the image goes; must have room for it
     * @throws StableDiskException       if the round is not committed or the file is missing or damaged
     *                                   (then the bytes in {@code dst} must not be used)
     * @throws IllegalArgumentException if {@code dst} is too small
     */
    public void readInto(final long round, final ByteBuffer dst) throws StableDiskException {
        readOwn(round, dst, null);
    }

    /**
     * Reads this rank's image of a committed round chunk by chunk into {@code sink}, verifying it as
     * {@link #readInto(long, ByteBuffer)} does; for images of any size (above 2 GiB too).
     *
     * @param round a committed round
     * @param sink  takes the chunks in order
     * @return the image length
     * @throws StableDiskException as {@link #readInto(long, ByteBuffer)}, or if the sink fails
     */
    public long readInto(final long round, final ImageSink sink) throws StableDiskException {
        return readOwn(round, null, sink);
    }

    /** Checks the commit, then reads and verifies this rank's file into dst or sink; returns the image length. */
    private long readOwn(final long round, final ByteBuffer dst, final ImageSink sink) throws StableDiskException {
        final CommitMarker marker = requireCommitted(round);
        if (marker.worldSize() != config.worldSize()) {
            throw new StableDiskException(layout.markerFile(round), "round " + round + " was written by "
                + marker.worldSize() + " ranks, this run has " + config.worldSize()
                + "; restoring on a different world size is not supported", null);
        }
        final long length = marker.ranks().get(config.rank()).imageLength();
        if (dst != null && dst.remaining() < length) {
            throw new IllegalArgumentException("buffer has room for " + dst.remaining() + " bytes, image is " + length);
        }
        final Path path = layout.rankFile(round, config.rank());
        try {
            verifyOwnFile(round, marker, dst, sink);
        } catch (final StableDiskException e) {
            throw e;
        } catch (final NoSuchFileException e) {
            throw new StableDiskException(path, "round " + round + " is committed but this rank's file is missing", e);
        } catch (final IOException e) {
            throw new StableDiskException(path, "round " + round + ": this rank's file cannot be read (" + e + ")", e);
        }
        return length;
    }

    /**
     * @param round a committed round
     * @return this rank's verified image in a new direct buffer (position 0, limit = length)
     * @throws StableDiskException as {@link #readInto}
     */
    public ByteBuffer readImage(final long round) throws StableDiskException {
        final long length = imageLength(round);
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("image of " + length + " bytes: use readInto with a larger region");
        }
        final ByteBuffer dst = ByteBuffer.allocateDirect((int)length);
        readInto(round, dst);
        return dst.flip();
    }

    /**
     * Deletes this rank's files no longer kept, given that {@code writtenRound} is the round it
     * wrote last: keeps that round and the {@value #KEPT_COMMITTED_GENERATIONS} newest committed
     * rounds not above it; deletes older files, and files above it (an abandoned timeline). An
     * uncommitted file newer than the newest commit is kept (its commit may be under way).
     * Call from the thread that writes (the flusher).
     *
     * @param writtenRound the round this rank wrote last
     * @return the number of files deleted
     */
    public int pruneOwnFiles(final long writtenRound) {
        final List<Long> kept = new ArrayList<>();
        for (final long round : committedRounds()) {
            if (round <= writtenRound && kept.size() < KEPT_COMMITTED_GENERATIONS) {
                kept.add(round);
            }
        }
        final long newestCommitted = kept.isEmpty() ? Long.MIN_VALUE : kept.get(0);
        int deleted = 0;
        for (final String name : listNames()) {
            final OptionalLong round = GenerationLayout.roundOfRankFile(name, config.rank());
            if (round.isEmpty()) {
                continue;
            }
            final long r = round.getAsLong();
            if (r != writtenRound && !kept.contains(r) && (r < newestCommitted || r > writtenRound)) {
                deleted += delete(layout.jobDirectory().resolve(name));
            }
        }
        return deleted;
    }

    private GenerationStatus status(final long round) {
        final CommitMarker marker;
        try {
            marker = readMarker(round).orElse(null);
        } catch (final DiskFileCorruptException e) {
            return new GenerationStatus(round, 0, Integrity.MARKER_DAMAGED, e.getMessage());
        }
        if (marker == null) {
            return new GenerationStatus(round, 0, Integrity.MARKER_DAMAGED, "commit marker vanished while listing");
        }
        if (marker.worldSize() != config.worldSize()) {
            return new GenerationStatus(round, marker.worldSize(), Integrity.WORLD_SIZE_MISMATCH,
                "written by " + marker.worldSize() + " ranks, this run has " + config.worldSize());
        }
        try {
            verifyOwnFile(round, marker, null, null);
            return new GenerationStatus(round, marker.worldSize(), Integrity.INTACT, "");
        } catch (final NoSuchFileException e) {
            return new GenerationStatus(round, marker.worldSize(), Integrity.MISSING,
                "file missing: " + layout.rankFile(round, config.rank()));
        } catch (final IOException e) {
            // the file first: the detail may be cut (RankInventory.MAX_DETAIL_BYTES)
            final Path file = layout.rankFile(round, config.rank());
            final String why = String.valueOf(e.getMessage());
            final String suffix = ": " + file;
            return new GenerationStatus(round, marker.worldSize(), Integrity.DAMAGED, "file " + file + ": "
                + (why.endsWith(suffix) ? why.substring(0, why.length() - suffix.length()) : why));
        }
    }

    private CommitMarker requireCommitted(final long round) throws StableDiskException {
        final Optional<CommitMarker> marker = readMarker(round);
        if (marker.isEmpty()) {
            throw new StableDiskException(layout.markerFile(round), "round " + round + " is not committed (no commit marker)", null);
        }
        return marker.get();
    }

    /** Verifies this rank's file of a committed round; copies the image into dst or hands it to sink when not null. */
    private void verifyOwnFile(final long round, final CommitMarker marker, final ByteBuffer dst, final ImageSink sink)
        throws IOException {
        final Path path = layout.rankFile(round, config.rank());
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            final RankFileHeader header = readCheckedHeader(channel, path, round, config.rank(), marker.worldSize());
            final CommitMarker.RankEntry entry = marker.ranks().get(config.rank());
            if (entry.imageLength() != header.imageLength() || entry.imageCrc() != header.imageCrc()
                || entry.headerCrc() != header.headerCrc()) {
                throw new DiskFileCorruptException(DiskFileDamage.MARKER_MISMATCH, path, String.format(
                    "file has image length %d CRC 0x%08x, the commit marker vouches for length %d CRC 0x%08x"
                        + " (the file was replaced after the commit)",
                    header.imageLength(), header.imageCrc(), entry.imageLength(), entry.imageCrc()));
            }
            final ImageMac mac = config.imageKey() == null ? null : config.imageKey().newMac().begin(header.imageLength());
            final int actual = dst == null ? crcOfImage(channel, header.imageLength(), sink, mac, path, round)
                : readImage(channel, header.imageLength(), dst, mac, path, round);
            if (actual != header.imageCrc()) {
                throw new DiskFileCorruptException(DiskFileDamage.IMAGE_CRC_MISMATCH, path, String.format(
                    "image CRC32C is 0x%08x, the header says 0x%08x (image bytes damaged)", actual, header.imageCrc()));
            }
            if (mac != null) {
                refuseUnlessAuthentic(mac.problem(config.rank(), round), path, round);
            }
        }
    }

    /** Throws {@link DiskFileDamage#NOT_AUTHENTIC} naming the file, the rank and the round when the image is refused. */
    private void refuseUnlessAuthentic(final String problem, final Path path, final long round)
        throws DiskFileCorruptException {
        if (problem != null) {
            throw new DiskFileCorruptException(DiskFileDamage.NOT_AUTHENTIC, path, "rank " + config.rank() + "'s image of"
                + " round " + round + " refused before it is read: " + problem);
        }
    }

    /** Feeds a chunk read to the image's MAC; refuses another key's or format's image once its header went by. */
    private void authenticate(final ImageMac mac, final ByteBuffer chunk, final Path path, final long round)
        throws DiskFileCorruptException {
        if (mac != null) {
            final boolean first = mac.position() == 0;
            mac.update(chunk);
            if (first) {
                refuseUnlessAuthentic(mac.earlyProblem(), path, round);
            }
        }
    }

    private RankFileHeader readCheckedHeader(final FileChannel channel, final Path path, final long round,
                                             final int rank, final int worldSize) throws IOException {
        final long size = channel.size();
        final ByteBuffer buffer = ByteBuffer.allocate(DiskFileDescriptor.HEADER_LENGTH);
        if (size >= DiskFileDescriptor.HEADER_LENGTH) {
            readFully(channel, buffer, 0);
        }
        final RankFileHeader header = DiskFileDescriptor.decode(buffer.flip(), path, size);
        if (!header.jobId().equals(config.jobId())) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_JOB, path,
                "file of job '" + header.jobId() + "', expected '" + config.jobId() + "'");
        }
        if (header.rank() != rank) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_RANK, path,
                "file of rank " + header.rank() + ", expected rank " + rank);
        }
        if (header.worldSize() != worldSize) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_WORLD_SIZE, path,
                "file of world size " + header.worldSize() + ", expected " + worldSize);
        }
        if (header.round() != round) {
            throw new DiskFileCorruptException(DiskFileDamage.WRONG_ROUND, path,
                "file of round " + header.round() + ", expected round " + round);
        }
        final long expected = DiskFileDescriptor.fileLength(header.imageLength());
        if (header.imageLength() < 0 || size < expected) {
            throw new DiskFileCorruptException(DiskFileDamage.TRUNCATED, path,
                "file is " + size + " bytes, header and image need " + expected);
        }
        if (size > expected) {
            throw new DiskFileCorruptException(DiskFileDamage.OVERSIZED, path,
                "file is " + size + " bytes, header and image need only " + expected);
        }
        return header;
    }

    private int writeImage(final FileChannel channel, final CheckpointImage image, final long length) throws IOException {
        final CRC32C crc = new CRC32C();
        final int chunk = config.writeChunkSize();
        long offset = 0;
        while (offset < length) {
            final int n = (int)Math.min(chunk, length - offset);
            final ByteBuffer region = image.region(offset, n);
            crc.update(region.duplicate());
            writeFully(channel, region, DiskFileDescriptor.IMAGE_OFFSET + offset);
            offset += n;
        }
        return (int)crc.getValue();
    }

    private int crcOfImage(final FileChannel channel, final long length, final ImageSink sink, final ImageMac mac,
                           final Path path, final long round) throws IOException {
        final CRC32C crc = new CRC32C();
        final ByteBuffer buffer = ByteBuffer.allocateDirect((int)Math.min(VERIFY_CHUNK, Math.max(length, 1)));
        long offset = 0;
        while (offset < length) {
            buffer.clear().limit((int)Math.min(buffer.capacity(), length - offset));
            readFully(channel, buffer, DiskFileDescriptor.IMAGE_OFFSET + offset);
            authenticate(mac, buffer.flip(), path, round);
            crc.update(buffer);
            if (sink != null) {
                sink.accept(offset, buffer.rewind());
            }
            offset += buffer.limit();
        }
        return (int)crc.getValue();
    }

    private int readImage(final FileChannel channel, final long length, final ByteBuffer dst, final ImageMac mac,
                          final Path path, final long round) throws IOException {
        final CRC32C crc = new CRC32C();
        long offset = 0;
        while (offset < length) {
            final int n = (int)Math.min(VERIFY_CHUNK, length - offset);
            final ByteBuffer part = dst.slice(dst.position(), n);
            readFully(channel, part, DiskFileDescriptor.IMAGE_OFFSET + offset);
            authenticate(mac, part.flip(), path, round);
            crc.update(part);
            dst.position(dst.position() + n);
            offset += n;
        }
        return (int)crc.getValue();
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer src, final long position) throws IOException {
        long at = position;
        while (src.hasRemaining()) {
            at += channel.write(src, at);
        }
    }

    private static void readFully(final FileChannel channel, final ByteBuffer dst, final long position) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            final int n = channel.read(dst, at);
            if (n < 0) {
                throw new IOException("unexpected end of file at " + at);
            }
            at += n;
        }
    }

    private static void forceDirectory(final Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private void ensureDirectory() throws DiskWriteFailedException {
        final Path directory = layout.jobDirectory();
        if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.createDirectories(directory, OWNER_DIR_ATTRIBUTE);
            Files.setPosixFilePermissions(directory, OWNER_DIR);
            LOG.info("stable-disk directory created: {}", directory);
        } catch (final IOException | UnsupportedOperationException e) {
            throw classify(e, directory, "stable-disk directory cannot be created");
        }
    }

    private void retractMarkers(final long committed) {
        final List<Long> rounds = markerRounds();
        long previous = Long.MIN_VALUE;
        for (final long round : rounds) {
            if (round < committed && isCommitted(round)) {
                previous = round;
                break;
            }
        }
        int deleted = 0;
        for (final long round : rounds) {
            if (round != committed && round != previous) {
                if (delete(layout.markerFile(round)) > 0) {
                    deleted++;
                    LOG.info("stable-disk round {} retracted (committed {}, kept {})", round, committed,
                        previous == Long.MIN_VALUE ? "none older" : previous);
                }
            }
        }
        for (final String name : listNames()) {
            if (GenerationLayout.roundOfMarkerTempFile(name).isPresent()) {
                delete(layout.jobDirectory().resolve(name));
            }
        }
        syncDeletions(deleted);
    }

    /**
     * Retracts every commit marker of the job, run by the coordinator when a run deliberately
     * starts from scratch under a job id that already has generations on disk (otherwise a failure
     * before this run's first commit would restore the earlier run). Rank files are deleted by each
     * rank's next {@link #pruneOwnFiles}.
     *
     * @return the number of markers retracted
     */
    public int retractAll() {
        int deleted = 0;
        for (final String name : listNames()) {
            if (GenerationLayout.roundOfMarker(name).isPresent() || GenerationLayout.roundOfMarkerTempFile(name).isPresent()) {
                deleted += delete(layout.jobDirectory().resolve(name));
            }
        }
        syncDeletions(deleted);
        LOG.info("stable-disk: all {} commit marker(s) of job {} retracted", deleted, config.jobId());
        return deleted;
    }

    /** Makes retractions durable, so that a crash cannot bring a retracted marker back. */
    private void syncDeletions(final int deleted) {
        if (deleted > 0) {
            try {
                forceDirectory(layout.jobDirectory());
            } catch (final IOException e) {
                LOG.warn("stable-disk: cannot sync {} after deletions: {}", layout.jobDirectory(), e.toString());
            }
        }
    }

    private void removeStaleTemporaries() {
        for (final String name : listNames()) {
            if (GenerationLayout.roundOfRankTempFile(name, config.rank()).isPresent()) {
                LOG.info("stable-disk: removing {} left by an interrupted write", name);
                delete(layout.jobDirectory().resolve(name));
            }
        }
    }

    /** Rounds with a marker file (valid or not), newest first. */
    private List<Long> markerRounds() {
        final List<Long> rounds = new ArrayList<>();
        for (final String name : listNames()) {
            GenerationLayout.roundOfMarker(name).ifPresent(rounds::add);
        }
        rounds.sort(Comparator.reverseOrder());
        return rounds;
    }

    private List<String> listNames() {
        final List<String> names = new ArrayList<>();
        final Path directory = layout.jobDirectory();
        if (!Files.isDirectory(directory)) {
            return names;
        }
        try (DirectoryStream<Path> stream = PathUtils.newDirectoryStream(directory, new RegexFileFilter("round-.*"))) {
            for (final Path path : stream) {
                names.add(path.getFileName().toString());
            }
        } catch (final IOException e) {
            LOG.warn("stable-disk directory cannot be listed: {}: {}", directory, e.toString());
        }
        return names;
    }

    private static int delete(final Path path) {
        try {
            return Files.deleteIfExists(path) ? 1 : 0;
        } catch (final IOException e) {
            LOG.warn("stable-disk: cannot delete {}: {}", path, e.toString());
            return 0;
        }
    }

    private static void checkRound(final long round) {
        if (round < 0) {
            throw new IllegalArgumentException("round " + round + " is negative");
        }
    }

    /**
     * Turns an I/O error into a {@link DiskWriteFailedException} naming the path and the reason.
     */
    static DiskWriteFailedException classify(final Throwable error, final Path path, final String message) {
        final Throwable e = error instanceof UncheckedIOException ? error.getCause() : error;
        if (e instanceof DiskWriteFailedException d) {
            return d;
        }
        final String text = String.valueOf(e.getMessage());
        final DiskWriteFailedException.Reason reason;
        if (text.contains("No space left") || text.contains("Disk quota exceeded")) {
            reason = DiskWriteFailedException.Reason.NO_SPACE;
        } else if (e instanceof NoSuchFileException && !Files.isDirectory(path.getParent())) {
            reason = DiskWriteFailedException.Reason.DIRECTORY_MISSING;
        } else if (e instanceof AccessDeniedException || e instanceof NotDirectoryException
            || e instanceof FileAlreadyExistsException || e instanceof UnsupportedOperationException
            || (e instanceof FileSystemException && (text.contains("Not a directory") || text.contains("Read-only")))) {
            reason = DiskWriteFailedException.Reason.NOT_WRITABLE;
        } else {
            reason = DiskWriteFailedException.Reason.IO_ERROR;
        }
        return new DiskWriteFailedException(reason, path, message, e);
    }
}
