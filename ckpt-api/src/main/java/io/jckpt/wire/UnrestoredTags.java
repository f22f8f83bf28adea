package io.jckpt.wire;

import io.jckpt.spi.Collective;
import java.util.ArrayList;
import java.util.List;

/**
 * A rank's part of the check after a recovery ({@link Collective.Kind#RESTORE_CHECK}): the tags of the
 * restored checkpoint it neither restored nor removed, in the image's order (none when the program
 * restored everything). Wire body: a count, then each tag as a string.
 *
 * @param tags the tags not accounted for
 */
public record UnrestoredTags(List<String> tags) {
    /** The exchange. */
    public static final Exchange<UnrestoredTags> EXCHANGE = Exchange.of(Collective.Kind.RESTORE_CHECK, 1,
            UnrestoredTags.class, UnrestoredTags::write, UnrestoredTags::read);

    /** Freezes the list. */
    public UnrestoredTags {
        tags = List.copyOf(tags);
    }

    private static void write(WireWriter w, UnrestoredTags m) {
        w.i32(m.tags.size());
        m.tags.forEach(w::string);
    }

    private static UnrestoredTags read(WireReader r) {
        int count = r.count("tags", Integer.BYTES);
        List<String> tags = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            tags.add(r.string("tag " + i));
        }
        return new UnrestoredTags(tags);
    }
}
