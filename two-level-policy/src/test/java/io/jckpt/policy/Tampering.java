package io.jckpt.policy;

import io.jckpt.imem.ReplicaSlotDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a process of the job's user can do to the checkpoint files behind the library's back (the
 * authentication tests' adversary): find a slot file by owner and round, and change its image while
 * making the slot's CRC32Cs fit again, so that only the image's MAC can tell.
 */
final class Tampering {
    private Tampering() {
    }

    /** @return the COMPLETE slot file under {@code store} (a rank's store directory, any layout) of {@code owner}'s round */
    static Path slotFile(Path store, int owner, long round) throws IOException {
        try (Stream<Path> files = Files.walk(store)) {
            for (Path p : files.filter(f -> f.getFileName().toString().startsWith("o" + owner + "-v")
                    && f.toString().endsWith(".slot")).toList()) {
                ByteBuffer h = header(p);
                if (h.getInt(ReplicaSlotDescriptor.STATE_OFFSET) == ReplicaSlotDescriptor.STATE_COMPLETE
                        && h.getLong(ReplicaSlotDescriptor.ROUND_OFFSET) == round) {
                    return p;
                }
            }
        }
        throw new AssertionError("no slot of rank " + owner + "'s round " + round + " under " + store);
    }

    private static ByteBuffer header(Path slot) throws IOException {
        try (FileChannel ch = FileChannel.open(slot, StandardOpenOption.READ)) {
            ByteBuffer h = ByteBuffer.allocate(ReplicaSlotDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(h, 0);
            return h;
        }
    }

    /** @return the image a slot file holds */
    static byte[] slotImage(Path slot) throws IOException {
        try (FileChannel ch = FileChannel.open(slot, StandardOpenOption.READ)) {
            byte[] image = new byte[Math.toIntExact(header(slot).getLong(ReplicaSlotDescriptor.LENGTH_OFFSET))];
            ch.read(ByteBuffer.wrap(image), ReplicaSlotDescriptor.HEADER_LENGTH);
            return image;
        }
    }

    /** Changes the image in a slot file and makes the slot's image and header CRC32C fit the new bytes. */
    static void alterSlotImage(Path slot, Consumer<byte[]> change) throws IOException {
        byte[] image = slotImage(slot);
        change.accept(image);
        CRC32C crc = new CRC32C();
        crc.update(image);
        ByteBuffer h = header(slot).putInt(ReplicaSlotDescriptor.CRC_OFFSET, (int) crc.getValue());
        h.putInt(ReplicaSlotDescriptor.HEADER_CRC_OFFSET, ReplicaSlotDescriptor.headerCrc(h));
        try (FileChannel ch = FileChannel.open(slot, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(image), ReplicaSlotDescriptor.HEADER_LENGTH);
            ch.write(h.clear(), 0);
        }
    }
}
