package io.jckpt.data;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The tags of the checkpoint a recovery restored that the program has not yet restored ({@code register}
 * or {@code rollback}) nor dropped ({@code remove}), in the image's order. Every checkpointer keeps one
 * from open to its first here(), ctrl() or close(), where every tag must be accounted for; the
 * {@link #encode}d list is what a rank sends for that check. Not thread-safe.
 */
public final class RestoredTags {
    private final long round;
    private final Set<String> pending;

    /**
     * @param round the round restored
     * @param tags  the tags its image holds
     */
    public RestoredTags(long round, Collection<String> tags) {
        this.round = round;
        this.pending = new LinkedHashSet<>(tags);
    }

    /** @return the round restored */
    public long round() {
        return round;
    }

    /**
     * @param tag a tag
     * @return whether the restored checkpoint holds it and it is not yet restored or removed
     */
    public boolean isPending(String tag) {
        return tag != null && pending.contains(tag);
    }

    /** @param tag restored in place, or removed: accounted for */
    public void accountFor(String tag) {
        pending.remove(tag);
    }

    /** @return the tags not accounted for, in the image's order */
    public List<String> pending() {
        return List.copyOf(pending);
    }

    /**
     * @param tags some tags
     * @return them as bytes: a count, then each tag's length and UTF-8 bytes
     */
    public static byte[] encode(List<String> tags) {
        List<byte[]> utf8 = new ArrayList<>(tags.size());
        int length = Integer.BYTES;
        for (String t : tags) {
            byte[] b = t.getBytes(StandardCharsets.UTF_8);
            utf8.add(b);
            length += Integer.BYTES + b.length;
        }
        ByteBuffer out = ByteBuffer.allocate(length).putInt(tags.size());
        for (byte[] b : utf8) {
            out.putInt(b.length).put(b);
        }
        return out.array();
    }

    /**
     * @param bytes what {@link #encode} made
     * @return the tags
     * @throws IllegalArgumentException when the bytes are not such a list
     */
    public static List<String> decode(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int count = in.getInt();
            if (count < 0 || count > bytes.length) {
                throw new IllegalArgumentException("a tag list of " + count + " tags in " + bytes.length + " bytes");
            }
            List<String> tags = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int n = in.getInt();
                if (n < 0 || n > in.remaining()) {
                    throw new IllegalArgumentException("tag " + i + " of " + n + " bytes, " + in.remaining() + " left");
                }
                byte[] b = new byte[n];
                in.get(b);
                tags.add(new String(b, StandardCharsets.UTF_8));
            }
            return tags;
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a tag list cut short at " + bytes.length + " bytes", e);
        }
    }
}
