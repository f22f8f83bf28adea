package io.jckpt.image;

import static io.jckpt.image.CheckpointImageDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The MAC of one checkpoint image (HMAC-SHA256 with the job's {@link ImageKey}, layout:
 * {@link CheckpointImageDescriptor}), computed as the image's bytes go by, in order, in chunks of any
 * size: the bytes before the MAC trailer go into the MAC, the trailer's are kept, and the header's key
 * id and format version are looked at first. One engine for both directions:
 * <ul>
 *   <li>seal: {@link #begin}, feed the image up to its trailer, take {@link #tag()} and write it as
 *   the trailer ({@link #seal} does all of it for an image in memory);</li>
 *   <li>verify: {@link #begin}, feed the whole image, ask {@link #problem()}: null when the image is
 *   authentic, else why it is refused ({@link #verify} for an image in memory). {@link #earlyProblem()}
 *   refuses an image of another key, an older format or no image at all once its header went by,
 *   before the rest is read.</li>
 * </ul>
 * Reusable; one thread at a time.
 */
public final class ImageMac {
    /** Bytes of the MAC trailer. */
    public static final int TAG_LENGTH = MAC_LENGTH;
    /** The header bytes kept: magic, version, flags and key id are looked at before the MAC, the rest after. */
    private static final int HEAD = HEADER_LENGTH;
    /** The header bytes looked at before the MAC is known: magic, version, flags, key id. */
    private static final int EARLY = KEY_ID_OFFSET + 4;
    private static final int SCRATCH = 64 << 10;
    /** Chunks of a slot or file region handed to the MAC at a time. */
    private static final long REGION_CHUNK = 1 << 20;

    private final ImageKey key;
    private final Mac mac;
    private final ByteBuffer head = ByteBuffer.allocate(HEAD).order(ByteOrder.nativeOrder());
    private final byte[] stored = new byte[TAG_LENGTH];
    private byte[] scratch;
    private long length = -1;
    private long at;
    private boolean finished;

    ImageMac(ImageKey key) {
        this.key = key;
        try {
            this.mac = Mac.getInstance(ImageKey.ALGORITHM);
            mac.init(key.macKey());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ImageKey.ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** A view of an image's bytes from an offset: all that is asked for, or fewer where a mapping window ends. */
    @FunctionalInterface
    public interface Regions {
        /**
         * @param offset an offset in the image
         * @param max    the most bytes wanted
         * @return a view of at least one and at most {@code max} bytes from {@code offset} (position..limit)
         */
        ByteBuffer region(long offset, long max);
    }

    /** @return the key */
    public ImageKey key() {
        return key;
    }

    /**
     * Starts the MAC of an image.
     *
     * @param imageLength the image's total length, trailer included
     * @return this
     */
    public ImageMac begin(long imageLength) {
        mac.reset();
        head.clear();
        length = imageLength;
        at = 0;
        finished = false;
        return this;
    }

    /** @return the image bytes fed since {@link #begin} */
    public long position() {
        return at;
    }

    /** @return where the MAC trailer starts (the bytes the MAC covers) */
    public long macEnd() {
        return length - TAG_LENGTH;
    }

    /**
     * Feeds the next image bytes.
     *
     * @param bytes the bytes at {@link #position()} of the image: position..limit (not moved)
     * @throws IllegalStateException past the image's end, or without {@link #begin}
     */
    public void update(ByteBuffer bytes) {
        int n = bytes.remaining();
        if (length < 0 || finished || at + n > length) {
            throw new IllegalStateException("MAC of an image of " + length + " bytes fed " + (at + n) + " bytes"
                    + (finished ? " after it was finished" : ""));
        }
        int p = bytes.position();
        if (at < HEAD) {
            int k = (int) Math.min(HEAD - at, n);
            head.put(head.position(), bytes, p, k);
            head.position(head.position() + k);
        }
        if (length < HEADER_LENGTH + TAG_LENGTH) { // refused by earlyProblem(): nothing to compute
            at += n;
            return;
        }
        long macEnd = macEnd();
        if (at < macEnd) {
            int k = (int) Math.min(macEnd - at, n);
            mac.update(bytes.duplicate().position(p).limit(p + k));
        }
        if (at + n > macEnd) {
            long from = Math.max(at, macEnd);
            int k = (int) (at + n - from);
            bytes.get(p + (int) (from - at), stored, (int) (from - macEnd), k);
        }
        at += n;
    }

    /**
     * Feeds the next image bytes from a store.
     *
     * @param store  the store
     * @param offset where the bytes are
     * @param count  how many
     */
    public void update(BytesStore<?, ?> store, long offset, long count) {
        if (scratch == null) {
            scratch = new byte[SCRATCH];
        }
        for (long done = 0; done < count; ) {
            int k = (int) Math.min(SCRATCH, count - done);
            store.read(offset + done, scratch, 0, k);
            update(ByteBuffer.wrap(scratch, 0, k));
            done += k;
        }
    }

    /**
     * @return the MAC of the bytes fed: call when exactly the bytes before the trailer ({@link #macEnd()})
     *     were fed; the trailer to write at {@link #macEnd()}
     */
    public byte[] tag() {
        if (at != macEnd() || finished) {
            throw new IllegalStateException("the MAC of an image of " + length + " bytes is taken after its first "
                    + macEnd() + " bytes, not after " + at);
        }
        finished = true;
        return mac.doFinal();
    }

    /**
     * @return once the header's first bytes went by: why the image cannot be this job's (no image, an older
     *     format, another key), or null (also before they went by)
     */
    public String earlyProblem() {
        boolean tooShort = length >= 0 && length < HEADER_LENGTH + TAG_LENGTH;
        if (head.position() < EARLY) {
            return tooShort ? tooShort() : null;
        }
        int magic = head.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            return Integer.reverseBytes(magic) == MAGIC ? "it was written on a machine of the other byte order"
                    : "it is not a checkpoint image (magic 0x" + Integer.toHexString(magic) + ")";
        }
        String version = ImageHeaders.versionProblem(head.getShort(VERSION_OFFSET));
        if (version != null) {
            return version; // an older format is named as such, whatever its length
        }
        if (tooShort) {
            return tooShort();
        }
        int id = head.getInt(KEY_ID_OFFSET);
        if (id != key.id()) {
            return "it was written with another key (key id " + ImageKey.hex(id) + "; this job's key is "
                    + key.idHex() + "): not this job's checkpoint";
        }
        return null;
    }

    /**
     * @return after every byte of the image was fed: null when it is authentic (this job's key, its MAC
     *     matches), else why it is refused
     */
    public String problem() {
        if (at != length || finished) {
            throw new IllegalStateException("an image of " + length + " bytes is verified after all of them, not after "
                    + at);
        }
        String early = earlyProblem();
        if (early != null) {
            finished = true;
            return early;
        }
        finished = true;
        byte[] computed = mac.doFinal();
        return MessageDigest.isEqual(computed, stored) ? null
                : "its MAC does not match its bytes: it was altered after it was written (key id " + key.idHex() + ")";
    }

    /**
     * {@link #problem()}, then whether the authentic image is the one its holder says it holds (a slot's
     * owner and round, a file's rank and round): an image of this job copied into another's place is
     * authentic and still refused.
     *
     * @param rank  whose data the holder says it is, or -1 not to check
     * @param round the round the holder says it is, or -1 not to check
     * @return null when the image is authentic and the one expected, else why it is refused
     */
    public String problem(int rank, long round) {
        String problem = problem();
        if (problem != null) {
            return problem;
        }
        long total = head.getLong(TOTAL_LENGTH_OFFSET);
        int imageRank = head.getInt(RANK_OFFSET);
        long imageRound = head.getLong(ROUND_OFFSET);
        if (total != length || rank >= 0 && imageRank != rank || round >= 0 && imageRound != round) {
            return "it is rank " + imageRank + "'s image of round " + imageRound + " (" + total + " bytes, by its"
                    + " authenticated header), not " + (rank >= 0 ? "rank " + rank + "'s" : "the") + " image of round "
                    + (round >= 0 ? Long.toString(round) : Long.toString(imageRound)) + " (" + length
                    + " bytes) that its place says";
        }
        return null;
    }

    /**
     * Seals an image in a store: computes its MAC and writes the trailer.
     *
     * @param store  the store holding the written image
     * @param offset the image's offset
     * @param imageLength the image length, trailer included
     */
    public void seal(BytesStore<?, ?> store, long offset, long imageLength) {
        begin(imageLength);
        update(store, offset, macEnd());
        store.write(offset + macEnd(), tag());
    }

    /**
     * Seals an image seen through regions (a slot's mapping windows).
     *
     * @param image       the image's regions, writable
     * @param imageLength the image length, trailer included
     */
    public void seal(Regions image, long imageLength) {
        begin(imageLength);
        feed(image, macEnd());
        byte[] tag = tag();
        for (int done = 0; done < TAG_LENGTH; ) {
            ByteBuffer part = image.region(macEnd() + done, TAG_LENGTH - done);
            int k = part.remaining();
            part.put(tag, done, k);
            done += k;
        }
    }

    /**
     * @param store       the store
     * @param offset      the image's offset
     * @param imageLength the image length, trailer included
     * @return null when the image is authentic, else why it is refused
     */
    public String verify(BytesStore<?, ?> store, long offset, long imageLength) {
        begin(imageLength);
        String early = earlyProblemAfterHeader(() -> update(store, offset, Math.min(EARLY, imageLength)));
        if (early != null) {
            return early;
        }
        update(store, offset + at, imageLength - at);
        return problem();
    }

    /**
     * @param image       the image's regions
     * @param imageLength the image length, trailer included
     * @return null when the image is authentic, else why it is refused
     */
    public String verify(Regions image, long imageLength) {
        return verify(image, imageLength, -1, -1);
    }

    /**
     * @param image       the image's regions
     * @param imageLength the image length, trailer included
     * @param rank        whose image its holder says it is, or -1 ({@link #problem(int, long)})
     * @param round       which round its holder says it is, or -1
     * @return null when the image is authentic and the one expected, else why it is refused
     */
    public String verify(Regions image, long imageLength, int rank, long round) {
        begin(imageLength);
        String early = earlyProblemAfterHeader(() -> feed(image, Math.min(EARLY, imageLength)));
        if (early != null) {
            return early;
        }
        feed(image, imageLength);
        return problem(rank, round);
    }

    private String tooShort() {
        return "it has " + length + " bytes, fewer than a header and a MAC (" + (HEADER_LENGTH + TAG_LENGTH) + ")";
    }

    private String earlyProblemAfterHeader(Runnable readHead) {
        if (length < EARLY) {
            finished = true;
            return earlyProblem();
        }
        readHead.run();
        String early = earlyProblem();
        if (early != null) {
            finished = true;
        }
        return early;
    }

    /** Feeds the image's bytes from {@link #position()} up to {@code end}. */
    private void feed(Regions image, long end) {
        while (at < end) {
            ByteBuffer part = image.region(at, Math.min(REGION_CHUNK, end - at));
            if (!part.hasRemaining()) {
                throw new IllegalStateException("an empty region at " + at + " of an image of " + length + " bytes");
            }
            update(part);
        }
    }
}
