package io.jckpt.policy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * The layout of what every rank contributes to the status exchange at open: enough for every rank
 * to check that the options agree, size the in-memory store, find the ring's data endpoints, and
 * decide (identically everywhere) which level to restore from.
 *
 * <pre>
 * offset  size  field
 *  0      4     VERSION
 *  4      8     options fingerprint (global options only)
 * 12      8     slot capacity of this rank's in-memory store (0 = no store yet)
 * 20      4     copies held in the in-memory store (own and replicas, verified)
 * 24      8     newest complete round of this rank's own data in its store (0 = none)
 * 32      4     flags: bit 0 = this node recorded that a round of the current run was complete on
 *               every rank (the global completed round G reached 1 since the job's start or its
 *               last clean start; see {@link StoreLayouts#roundCompleteEverywhereRecorded()})
 * 36      4     data endpoint port
 * 40      4     data endpoint address length (4 or 16), then the address bytes
 *  ..     4     disk inventory length (0 = disk level off), then the encoded inventory
 *  ..     4     number of store layouts held, then per layout (LAYOUT_ENTRY = 28 bytes):
 *               8 first round, 4 replicas, 4 requested replicas, 8 slot capacity, 4 versions kept
 *  ..     4     length of the copies status, then the status (imem's RankStatusDescriptor: the
 *               newest verified copy per owner), so that a recovery plans from this one exchange
 *  ..     4     the id of the job key this rank authenticates checkpoints with (ImageKey.id(); no secret)
 * </pre>
 */
final class OpenStatusDescriptor {
    static final int VERSION = 6;
    private static final int LAYOUT_ENTRY = 28;
    private static final int VERSION_OFFSET = 0;
    private static final int FINGERPRINT_OFFSET = 4;
    private static final int CAPACITY_OFFSET = 12;
    private static final int COPIES_OFFSET = 20;
    private static final int OWN_NEWEST_OFFSET = 24;
    private static final int FLAGS_OFFSET = 32;
    private static final int PORT_OFFSET = 36;
    private static final int ADDRESS_LENGTH_OFFSET = 40;
    private static final int ADDRESS_OFFSET = 44;
    private static final int FLAG_ROUND_COMPLETE_EVERYWHERE = 1;

    /** One rank's open status, decoded. */
    record OpenStatus(long fingerprint, long slotCapacity, int copiesHeld, long ownNewestComplete,
                      boolean roundCompleteEverywhere, InetSocketAddress endpoint, byte[] diskInventory,
                      java.util.List<StoreLayout> layouts, byte[] copiesStatus, int keyId) {
    }

    private OpenStatusDescriptor() {
    }

    static byte[] encode(OpenStatus status) {
        byte[] ip = status.endpoint().getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(ADDRESS_OFFSET + ip.length + 4 + status.diskInventory().length + 4
                + LAYOUT_ENTRY * status.layouts().size() + 4 + status.copiesStatus().length + 4);
        b.putInt(VERSION_OFFSET, VERSION)
                .putLong(FINGERPRINT_OFFSET, status.fingerprint())
                .putLong(CAPACITY_OFFSET, status.slotCapacity())
                .putInt(COPIES_OFFSET, status.copiesHeld())
                .putLong(OWN_NEWEST_OFFSET, status.ownNewestComplete())
                .putInt(FLAGS_OFFSET, status.roundCompleteEverywhere() ? FLAG_ROUND_COMPLETE_EVERYWHERE : 0)
                .putInt(PORT_OFFSET, status.endpoint().getPort())
                .putInt(ADDRESS_LENGTH_OFFSET, ip.length);
        b.position(ADDRESS_OFFSET);
        b.put(ip).putInt(status.diskInventory().length).put(status.diskInventory());
        b.putInt(status.layouts().size());
        for (StoreLayout l : status.layouts()) {
            b.putLong(l.firstRound()).putInt(l.replicas()).putInt(l.requestedReplicas()).putLong(l.slotCapacity())
                    .putInt(l.versionsKept());
        }
        b.putInt(status.copiesStatus().length).put(status.copiesStatus());
        b.putInt(status.keyId());
        return b.array();
    }

    static OpenStatus decode(int rank, byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.getInt(VERSION_OFFSET) != VERSION) {
                throw new IllegalArgumentException("version " + b.getInt(VERSION_OFFSET) + ", expected " + VERSION);
            }
            int ipLength = b.getInt(ADDRESS_LENGTH_OFFSET);
            if (ipLength != 4 && ipLength != 16) {
                throw new IllegalArgumentException("address length " + ipLength);
            }
            byte[] ip = new byte[ipLength];
            b.position(ADDRESS_OFFSET);
            b.get(ip);
            byte[] inventory = new byte[b.getInt()];
            b.get(inventory);
            int layoutCount = b.getInt();
            if (layoutCount < 0 || layoutCount * (long) LAYOUT_ENTRY > b.remaining()) {
                throw new IllegalArgumentException("layout count " + layoutCount);
            }
            java.util.List<StoreLayout> layouts = new java.util.ArrayList<>();
            for (int i = 0; i < layoutCount; i++) {
                layouts.add(new StoreLayout(b.getLong(), b.getInt(), b.getInt(), b.getLong(), b.getInt()));
            }
            int statusLength = b.getInt();
            if (statusLength < 0 || statusLength > b.remaining()) {
                throw new IllegalArgumentException("copies status length " + statusLength);
            }
            byte[] copiesStatus = new byte[statusLength];
            b.get(copiesStatus);
            int keyId = b.getInt();
            return new OpenStatus(b.getLong(FINGERPRINT_OFFSET), b.getLong(CAPACITY_OFFSET), b.getInt(COPIES_OFFSET),
                    b.getLong(OWN_NEWEST_OFFSET), (b.getInt(FLAGS_OFFSET) & FLAG_ROUND_COMPLETE_EVERYWHERE) != 0,
                    new InetSocketAddress(InetAddress.getByAddress(ip), b.getInt(PORT_OFFSET)),
                    inventory, java.util.List.copyOf(layouts), copiesStatus, keyId);
        } catch (RuntimeException | UnknownHostException e) {
            throw new IllegalStateException("the open status of rank " + rank + " is damaged: " + e.getMessage(), e);
        }
    }
}
