package io.jckpt.data;

import io.jckpt.InvalidTagException;

import java.nio.charset.StandardCharsets;

/** Rules for tags: non-empty strings of at most {@value #MAX_TAG_BYTES} UTF-8 bytes; int tags are their decimal text. */
public final class Tags {
    /** Longest tag, in UTF-8 bytes (the image stores the length as an unsigned short). */
    public static final int MAX_TAG_BYTES = 1024;

    private Tags() {
    }

    /**
     * @param tag  the tag
     * @param rank the rank, for the message
     * @return the tag's UTF-8 bytes
     * @throws InvalidTagException when null, empty or too long
     */
    public static byte[] encode(String tag, int rank) {
        if (tag == null) {
            throw new InvalidTagException(null, rank, "a tag must not be null");
        }
        if (tag.isEmpty()) {
            throw new InvalidTagException(tag, rank, "a tag must not be empty");
        }
        byte[] utf8 = tag.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_TAG_BYTES) {
            throw new InvalidTagException(tag, rank, "a tag must be at most " + MAX_TAG_BYTES + " UTF-8 bytes, this one has "
                    + utf8.length);
        }
        return utf8;
    }

    /**
     * @param tag an int tag (the paper's MPI_Ckpt takes ints)
     * @return its string form, the decimal text: int tag 7 and string tag "7" are the same tag
     */
    public static String of(int tag) {
        return Integer.toString(tag);
    }
}
