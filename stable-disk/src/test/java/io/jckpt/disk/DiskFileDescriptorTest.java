package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class DiskFileDescriptorTest {
    private static final Path PATH = Path.of("/stable/job/round-x.rank-y.jckpt");

    @Test
    void headerRoundTripsAndEveryDamageHasItsKind() throws Exception {
        final ByteBuffer header = DiskFileDescriptor.encode(new RankFileHeader("job-7", 3, 4, 1000, 1L << 33, 0xCAFEBABE, 0));
        assertEquals(DiskFileDescriptor.HEADER_LENGTH, header.remaining());
        assertEquals('J', header.get(0));
        final RankFileHeader decoded = DiskFileDescriptor.decode(header, PATH, DiskFileDescriptor.HEADER_LENGTH);
        assertEquals("job-7", decoded.jobId());
        assertEquals(3, decoded.rank());
        assertEquals(4, decoded.worldSize());
        assertEquals(1000, decoded.round());
        assertEquals(1L << 33, decoded.imageLength());
        assertEquals(0xCAFEBABE, decoded.imageCrc());
        assertEquals(0, decoded.epoch(), "a header without an epoch (the field was reserved, zero) is of epoch 0");
        final ByteBuffer ofEpoch = DiskFileDescriptor.encode(new RankFileHeader("job-7", 3, 4, 1000, 1L << 33, 0xCAFEBABE, 0, 5));
        assertEquals(5, ofEpoch.order(DiskFileDescriptor.BYTE_ORDER).getInt(DiskFileDescriptor.EPOCH_OFFSET));
        assertEquals(5, DiskFileDescriptor.decode(ofEpoch, PATH, DiskFileDescriptor.HEADER_LENGTH).epoch());

        assertKind(DiskFileDamage.TRUNCATED, header, 100);
        final ByteBuffer badMagic = copy(header);
        badMagic.put(0, (byte)'X');
        assertKind(DiskFileDamage.BAD_MAGIC, badMagic, 128);
        final ByteBuffer badVersion = copy(header);
        badVersion.put(DiskFileDescriptor.VERSION_OFFSET, (byte)9);
        assertKind(DiskFileDamage.UNSUPPORTED_VERSION, badVersion, 128);
        final ByteBuffer flipped = copy(header);
        flipped.put(DiskFileDescriptor.IMAGE_LENGTH_OFFSET, (byte)1);
        final DiskFileCorruptException e = assertKind(DiskFileDamage.HEADER_CRC_MISMATCH, flipped, 128);
        assertTrue(e.getMessage().startsWith("HEADER_CRC_MISMATCH: header CRC32C is 0x"), e.getMessage());
        assertTrue(e.getMessage().endsWith(PATH.toString()), e.getMessage());
    }

    @Test
    void markerRoundTripsAndDetectsDamage() throws Exception {
        final CommitMarker marker = new CommitMarker("job", 42, 2, 123456789L,
            List.of(new CommitMarker.RankEntry(10, 1, 2), new CommitMarker.RankEntry(20, 3, 4)));
        final ByteBuffer bytes = CommitMarkerDescriptor.encode(marker);
        assertEquals(CommitMarkerDescriptor.markerLength(2), bytes.remaining());
        assertEquals(marker, CommitMarkerDescriptor.decode(bytes, PATH));
        final DiskFileCorruptException truncated = assertThrows(DiskFileCorruptException.class,
            () -> CommitMarkerDescriptor.decode(bytes.duplicate().limit(110), PATH));
        assertEquals(DiskFileDamage.TRUNCATED, truncated.damage());
        final ByteBuffer flipped = copy(bytes);
        flipped.put(CommitMarkerDescriptor.RANK_ENTRIES_OFFSET + 3, (byte)7);
        assertEquals(DiskFileDamage.HEADER_CRC_MISMATCH,
            assertThrows(DiskFileCorruptException.class, () -> CommitMarkerDescriptor.decode(flipped, PATH)).damage());
    }

    private static DiskFileCorruptException assertKind(final DiskFileDamage kind, final ByteBuffer header, final long size) {
        final DiskFileCorruptException e = assertThrows(DiskFileCorruptException.class,
            () -> DiskFileDescriptor.decode(header, PATH, size));
        assertEquals(kind, e.damage(), e.getMessage());
        assertEquals(PATH, e.path());
        return e;
    }

    private static ByteBuffer copy(final ByteBuffer b) {
        final ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }
}
