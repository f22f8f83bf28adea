package io.jckpt.imem;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Binary layout of the frames on the data channel (ring replication and rollback transfers).
 * Little-endian, a fixed 40-byte header, then LENGTH payload bytes for DATA and WATERMARK frames.
 * <pre>
 *   0  int  MAGIC ('JCRF')
 *   4  int  TYPE     DATA / ACK / WATERMARK
 *   8  int  OWNER    rank whose image this is
 *  12  int  HOP      ring distance of the receiver from the owner (1..m); 0 for a rollback transfer
 *  16  long ROUND
 *  24  long LENGTH   payload length
 *  32  int  CRC32C   of the payload (DATA, DATA_END)
 *  36  int  FLAGS    FLAG_CRC_FOLLOWS (DATA); 0 otherwise
 * </pre>
 * DATA: an image copy. With FLAG_CRC_FOLLOWS its CRC32C field is 0 and a DATA_END frame (header
 * only, same OWNER, HOP, ROUND and LENGTH) follows the payload with the image's CRC32C: the owner
 * computes the CRC32C chunk by chunk just ahead of sending each chunk instead of in a pass before
 * the first byte goes out. A receiver completes its copy only at DATA_END, after its own CRC32C of
 * the bytes stored matched. ACK (to the previous rank): the receiver and every rank after it up to
 * hop m stored (OWNER, ROUND) verified. WATERMARK: payload is n entries of
 * {@link #WATERMARK_ENTRY_LENGTH} bytes, one per owner rank in rank order:
 * <pre>
 *   0  long COMPLETED  the newest round of this owner known fully replicated
 *   8  long SKIPPED    the first round this owner skipped (its image outgrew its slot), Long.MAX_VALUE if none
 *  16  long NEED       the slot capacity that skipped image needs, 0 if none
 *  24  long STEP_ROUND the newest own round this owner attached the program's step to, -1 if none
 *  32  long STEP       the program's step at STEP_ROUND (opaque to the ring), Long.MIN_VALUE if none
 *  40  long PREVIOUS   its step at STEP_ROUND - 1, Long.MIN_VALUE if not known
 * </pre>
 * then one trailer of {@link #WATERMARK_DECISIONS_LENGTH} bytes: the decider's (rank 0's) two newest
 * interval decisions ({@code ReplicationAgent.offerDecision}), as this sender knows them:
 * <pre>
 *   0  long ROUND0     the round the newest decision was taken at, -1 if none
 *   8  long VALUE0     that decision (opaque to the ring: the interval policy's encoding)
 *  16  long ROUND1     the round of the one before, -1 if none
 *  24  long VALUE1     that decision
 * </pre>
 */
public final class ReplicationFrameDescriptor {
    /** 'JCRF'. */
    public static final int MAGIC = 0x4A435246;
    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the type. */
    public static final int TYPE_OFFSET = 4;
    /** Offset of the owner. */
    public static final int OWNER_OFFSET = 8;
    /** Offset of the hop. */
    public static final int HOP_OFFSET = 12;
    /** Offset of the round. */
    public static final int ROUND_OFFSET = 16;
    /** Offset of the payload length. */
    public static final int LENGTH_OFFSET = 24;
    /** Offset of the payload CRC32C. */
    public static final int CRC_OFFSET = 32;
    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = 36;
    /** Flag of a DATA frame: the CRC32C comes after the payload, in a DATA_END frame. */
    public static final int FLAG_CRC_FOLLOWS = 1;
    /** Length of one owner's entry in a WATERMARK payload. */
    public static final int WATERMARK_ENTRY_LENGTH = 48;
    /** Length of the decision trailer of a WATERMARK payload. */
    public static final int WATERMARK_DECISIONS_LENGTH = 32;
    /** Header length. */
    public static final int HEADER_LENGTH = 40;

    /** Type: an image copy. */
    public static final int TYPE_DATA = 1;
    /** Type: an acknowledgement flowing back towards the owner. */
    public static final int TYPE_ACK = 2;
    /** Type: the replicated-round vector travelling forward around the ring. */
    public static final int TYPE_WATERMARK = 3;
    /** Type: the sender is closing the ring deliberately (no payload). */
    public static final int TYPE_GOODBYE = 4;
    /** Type: the end of a DATA frame sent with FLAG_CRC_FOLLOWS, carrying the image's CRC32C (no payload). */
    public static final int TYPE_DATA_END = 5;

    private ReplicationFrameDescriptor() {
    }

    /**
     * @return a new header buffer, little-endian, position 0, limit HEADER_LENGTH
     */
    public static ByteBuffer allocateHeader() {
        return ByteBuffer.allocateDirect(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes a header into {@code b} (absolute puts) and rewinds it.
     *
     * @param b      the header buffer
     * @param type   frame type
     * @param owner  owner rank
     * @param hop    hop
     * @param round  round
     * @param length payload length
     * @param crc    payload CRC32C
     * @return {@code b}, position 0, limit HEADER_LENGTH
     */
    public static ByteBuffer encode(ByteBuffer b, int type, int owner, int hop, long round, long length, int crc) {
        return encode(b, type, owner, hop, round, length, crc, 0);
    }

    /**
     * Writes a header with flags into {@code b} (absolute puts) and rewinds it.
     *
     * @param b      the header buffer
     * @param type   frame type
     * @param owner  owner rank
     * @param hop    hop
     * @param round  round
     * @param length payload length
     * @param crc    payload CRC32C
     * @param flags  {@link #FLAG_CRC_FOLLOWS} or 0
     * @return {@code b}, position 0, limit HEADER_LENGTH
     */
    public static ByteBuffer encode(ByteBuffer b, int type, int owner, int hop, long round, long length, int crc,
                                    int flags) {
        b.clear();
        b.putInt(MAGIC_OFFSET, MAGIC).putInt(TYPE_OFFSET, type).putInt(OWNER_OFFSET, owner).putInt(HOP_OFFSET, hop)
                .putLong(ROUND_OFFSET, round).putLong(LENGTH_OFFSET, length).putInt(CRC_OFFSET, crc)
                .putInt(FLAGS_OFFSET, flags);
        return b.limit(HEADER_LENGTH);
    }
}
