package io.jckpt.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.Collective;
import io.jckpt.spi.LocalRankCollective;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every exchange's message survives its wire form as the same record, and bytes that are not such a
 * message (cut at any length, one byte too many, another kind's or version's header, a field out of
 * range) are a {@link WireFormatException} naming the exchange and the rank, never a message.
 */
class ExchangeMessagesTest {
    private static final InetSocketAddress V4 = new InetSocketAddress(loopback(new byte[] {127, 0, 0, 7}), 40_123);
    private static final InetSocketAddress V6 = new InetSocketAddress(loopback(new byte[] {
            0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), 65_535);
    private static final RankStatus STATUS = new RankStatus(3, true, List.of(
            new CopyStatus(3, 7, 1 << 20, 0xCAFEBABE, true), new CopyStatus(2, 6, 4096, -1, false)));

    /** One message of each exchange, with whatever nests inside it. */
    record Sample<T>(Exchange<T> exchange, T message) {
        byte[] encode() {
            return exchange.encode(message);
        }

        T decode(int rank, byte[] bytes) {
            return exchange.decode(rank, bytes);
        }
    }

    private static final List<Sample<?>> SAMPLES = List.of(
            new Sample<>(OpenStatus.EXCHANGE, new OpenStatus(0x1234_5678_9ABC_DEF0L, 8192, 3, 7, true, V4,
                    new RankInventory("job-é", 3, 4, List.of(new GenerationStatus(9, 4, Integrity.INTACT, ""),
                            new GenerationStatus(6, 0, Integrity.MARKER_DAMAGED, "marker CRC ✓ mismatch"))), List.of(new OpenStatus.Layout(1, 1, 2, 4096, 2),
                    new OpenStatus.Layout(9, 2, 2, 8192, 3)), STATUS, 0x7F00_0001)),
            new Sample<>(OpenStatus.EXCHANGE, new OpenStatus(-5, 0, 0, 0, false, V6, null, List.of(),
                    new RankStatus(0, false, List.of()), 0)),
            new Sample<>(RankStatus.EXCHANGE, STATUS),
            new Sample<>(RestoreDone.EXCHANGE, new RestoreDone()),
            new Sample<>(RestoredStep.EXCHANGE, new RestoredStep(Long.MIN_VALUE)),
            new Sample<>(UnrestoredTags.EXCHANGE, new UnrestoredTags(List.of("grid", "é ✓ tag", ""))),
            new Sample<>(UnrestoredTags.EXCHANGE, new UnrestoredTags(List.of())),
            new Sample<>(SizeVote.EXCHANGE, new SizeVote(123_456_789_012L, 77, -1)),
            new Sample<>(ReconfigureStatus.EXCHANGE, new ReconfigureStatus(1 << 30, Long.MAX_VALUE, 12)),
            new Sample<>(SwitchReady.EXCHANGE, SwitchReady.READY),
            new Sample<>(SwitchReady.EXCHANGE, new SwitchReady("round 4 not replicated on every rank within 30 ms")),
            new Sample<>(CtrlCheck.EXCHANGE, new CtrlCheck(0xDEAD_BEEFL, 40)),
            new Sample<>(CloseCheck.EXCHANGE, new CloseCheck(9)),
            new Sample<>(CloseSettled.EXCHANGE, new CloseSettled(true, false)),
            new Sample<>(CloseSettled.EXCHANGE, new CloseSettled(false, true)),
            new Sample<>(DataAddress.EXCHANGE, new DataAddress(V6)));

    private static InetAddress loopback(byte[] ip) {
        try {
            return InetAddress.getByAddress(ip);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static String name(Sample<?> s) {
        return s.exchange() + ": " + s.message();
    }

    @Test
    void everyKindOfTheLibraryHasItsMessage() {
        Set<Collective.Kind> covered = EnumSet.noneOf(Collective.Kind.class);
        SAMPLES.forEach(s -> covered.add(s.exchange().kind()));
        assertEquals(EnumSet.allOf(Collective.Kind.class), covered);
    }

    @TestFactory
    Stream<DynamicTest> everyMessageRoundTrips() {
        return SAMPLES.stream().map(s -> DynamicTest.dynamicTest(name(s), () -> {
            byte[] bytes = s.encode();
            assertEquals(s.message(), s.decode(2, bytes));
            ByteBuffer header = ByteBuffer.wrap(bytes);
            assertEquals(s.exchange().kind().code(), header.getShort());
            assertEquals(s.exchange().version(), header.getShort());
        }));
    }

    @TestFactory
    Stream<DynamicTest> aMessageCutAtAnyLengthIsRefusedNamingTheExchangeAndRank() {
        return SAMPLES.stream().map(s -> DynamicTest.dynamicTest(name(s), () -> {
            byte[] bytes = s.encode();
            for (int n = 0; n < bytes.length; n++) {
                byte[] cut = Arrays.copyOf(bytes, n);
                WireFormatException e = assertThrows(WireFormatException.class, () -> s.decode(5, cut), n + " bytes");
                assertNamesExchangeAndRank(s, e, 5);
                assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("does not fit")
                        || e.getMessage().contains("length"), e.getMessage());
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> aMessageWithBytesLeftOverIsRefused() {
        return SAMPLES.stream().map(s -> DynamicTest.dynamicTest(name(s), () -> {
            byte[] longer = Arrays.copyOf(s.encode(), s.encode().length + 1);
            WireFormatException e = assertThrows(WireFormatException.class, () -> s.decode(1, longer));
            assertNamesExchangeAndRank(s, e, 1);
            assertTrue(e.getMessage().contains("wrong length: " + longer.length + " bytes, 1 left"), e.getMessage());
        }));
    }

    @TestFactory
    Stream<DynamicTest> anotherKindsOrVersionsMessageIsRefused() {
        return SAMPLES.stream().map(s -> DynamicTest.dynamicTest(name(s), () -> {
            byte[] bytes = s.encode();
            byte[] otherKind = bytes.clone();
            Collective.Kind other = s.exchange().kind() == Collective.Kind.CLOSE ? Collective.Kind.CTRL : Collective.Kind.CLOSE;
            ByteBuffer.wrap(otherKind).putShort(0, (short) other.code());
            WireFormatException e = assertThrows(WireFormatException.class, () -> s.decode(0, otherKind));
            assertNamesExchangeAndRank(s, e, 0);
            assertTrue(e.getMessage().contains("kind code " + other.code() + " (" + other.name() + ")"), e.getMessage());

            byte[] unknownKind = bytes.clone();
            ByteBuffer.wrap(unknownKind).putShort(0, (short) 999);
            assertTrue(assertThrows(WireFormatException.class, () -> s.decode(0, unknownKind)).getMessage()
                    .contains("kind code 999 (unknown kind)"));

            byte[] newer = bytes.clone();
            ByteBuffer.wrap(newer).putShort(2, (short) (s.exchange().version() + 1));
            e = assertThrows(WireFormatException.class, () -> s.decode(4, newer));
            assertNamesExchangeAndRank(s, e, 4);
            assertTrue(e.getMessage().contains("layout version " + (s.exchange().version() + 1)), e.getMessage());
        }));
    }

    private static void assertNamesExchangeAndRank(Sample<?> s, WireFormatException e, int rank) {
        Collective.Kind kind = s.exchange().kind();
        assertEquals(kind, e.kind());
        assertEquals(rank, e.rank());
        assertTrue(e.getMessage().startsWith("rank " + rank + "'s " + kind.what() + " message (" + kind.name()),
                e.getMessage());
    }

    @Test
    void aRankStatusWithAnyByteChangedIsRefusedByItsChecksum() {
        byte[] bytes = RankStatus.EXCHANGE.encode(STATUS);
        for (int i = Exchange.HEADER_LENGTH; i < bytes.length; i++) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assertThrows(WireFormatException.class, () -> RankStatus.EXCHANGE.decode(flipped), "byte " + i);
        }
    }

    @Test
    void fieldsOutOfRangeAreRefusedNamingTheField() {
        // a boolean that is neither 0 nor 1 (the fresh flag of a status)
        byte[] status = RankStatus.EXCHANGE.encode(new RankStatus(1, false, List.of()));
        status[Exchange.HEADER_LENGTH + 4] = 2;
        assertTrue(assertThrows(WireFormatException.class, () -> RankStatus.EXCHANGE.decode(status)).getMessage()
                .contains("fresh is 2"));
        // a copy count larger than the bytes that follow
        byte[] count = RankStatus.EXCHANGE.encode(new RankStatus(1, false, List.of()));
        ByteBuffer.wrap(count).putInt(Exchange.HEADER_LENGTH + 5, 1_000_000);
        assertTrue(assertThrows(WireFormatException.class, () -> RankStatus.EXCHANGE.decode(count)).getMessage()
                .contains("copies count 1000000"));
        // a negative round in a copy: the record's own check
        byte[] round = RankStatus.EXCHANGE.encode(new RankStatus(1, false, List.of(new CopyStatus(0, 1, 2, 3, true))));
        ByteBuffer.wrap(round).putLong(Exchange.HEADER_LENGTH + 9 + 5, -4);
        assertThrows(WireFormatException.class, () -> RankStatus.EXCHANGE.decode(round));
        // an IP address of 5 bytes
        byte[] address = DataAddress.EXCHANGE.encode(new DataAddress(V4));
        ByteBuffer b = ByteBuffer.allocate(address.length + 1).put(address, 0, Exchange.HEADER_LENGTH + 4).putInt(5)
                .put(new byte[] {127, 0, 0, 1, 1});
        assertTrue(assertThrows(WireFormatException.class, () -> DataAddress.EXCHANGE.decode(b.array())).getMessage()
                .contains("IP address of 5 bytes"));
        // unknown flag bits at close
        byte[] settled = CloseSettled.EXCHANGE.encode(new CloseSettled(true, true));
        settled[Exchange.HEADER_LENGTH] = 7;
        assertTrue(assertThrows(WireFormatException.class, () -> CloseSettled.EXCHANGE.decode(settled)).getMessage()
                .contains("unknown flags 111"));
        // a tag that is not UTF-8
        byte[] tags = UnrestoredTags.EXCHANGE.encode(new UnrestoredTags(List.of("ab")));
        tags[tags.length - 1] = (byte) 0xC3;
        assertTrue(assertThrows(WireFormatException.class, () -> UnrestoredTags.EXCHANGE.decode(tags)).getMessage()
                .contains("tag 0 is not UTF-8"));
        // a negative overflow in a size vote
        byte[] vote = SizeVote.EXCHANGE.encode(new SizeVote(0, 0, 0));
        ByteBuffer.wrap(vote).putLong(Exchange.HEADER_LENGTH, -1);
        assertTrue(assertThrows(WireFormatException.class, () -> SizeVote.EXCHANGE.decode(vote)).getMessage()
                .contains("overflow -1 < 0"));
    }

    @Test
    void aDiskInventoryKeepsItsNewestGenerationsAndCutsLongDetailsAtACharacter() {
        List<GenerationStatus> many = new ArrayList<>();
        for (int round = 20; round > 0; round--) {
            many.add(new GenerationStatus(round, 3, Integrity.DAMAGED, "x".repeat(399) + "é and more"));
        }
        RankInventory inventory = new RankInventory("job", 2, 3, many);
        assertEquals(RankInventory.MAX_ENTRIES, inventory.generations().size());
        assertEquals(20, inventory.generations().get(0).round());
        assertEquals("x".repeat(399), inventory.generations().get(0).detail(), "é takes 2 bytes: cut before it");
        OpenStatus status = new OpenStatus(1, 0, 0, 0, false, V4, inventory, List.of(), new RankStatus(2, false, List.of()), 0);
        assertEquals(status, OpenStatus.EXCHANGE.decode(OpenStatus.EXCHANGE.encode(status)));
    }

    @Test
    void aDiskInventoryWithAnUnknownIntegrityIsRefused() {
        RankInventory inventory = new RankInventory("j", 0, 1, List.of(new GenerationStatus(5, 1, Integrity.INTACT, "")));
        byte[] bytes = OpenStatus.EXCHANGE.encode(new OpenStatus(1, 0, 0, 0, false, V4, inventory, List.of(),
                new RankStatus(0, false, List.of()), 0));
        // header, 4 fixed fields and the flag, the IPv4 endpoint, the presence byte, job id "j", rank, world
        // size, count, then the generation's round and marker world size
        int at = Exchange.HEADER_LENGTH + 8 + 8 + 4 + 8 + 1 + (4 + 4 + 4) + 1 + (4 + 1) + 4 + 4 + 4 + 8 + 4;
        assertEquals(Integrity.INTACT.ordinal(), bytes[at]);
        bytes[at] = 9;
        WireFormatException e = assertThrows(WireFormatException.class, () -> OpenStatus.EXCHANGE.decode(3, bytes));
        assertEquals(Collective.Kind.OPEN, e.kind());
        assertTrue(e.getMessage().contains("integrity code 9 of generation 0"), e.getMessage());
    }

    @Test
    void allgatherGivesEveryRanksMessageInRankOrder() throws Exception {
        List<LocalRankCollective> world = LocalRankCollective.group(3);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<List<CtrlCheck>>> results = new ArrayList<>();
            for (LocalRankCollective rank : world) {
                results.add(pool.submit(() -> CtrlCheck.EXCHANGE.allgather(rank, new CtrlCheck(42, 10L + rank.rank()), 3,
                        Duration.ofSeconds(10))));
            }
            List<CtrlCheck> expected = List.of(new CtrlCheck(42, 10), new CtrlCheck(42, 11), new CtrlCheck(42, 12));
            for (Future<List<CtrlCheck>> f : results) {
                assertEquals(expected, f.get(20, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void allgatherNamesTheRankWhoseMessageIsMalformed() throws Exception {
        List<LocalRankCollective> world = LocalRankCollective.group(2);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            // rank 1 sends a close message where rank 0 exchanges a ctrl message, under the same call
            Future<byte[][]> other = pool.submit(() -> world.get(1).allgather(Collective.of(Collective.Kind.CTRL, 3),
                    CloseCheck.EXCHANGE.encode(new CloseCheck(7)), Duration.ofSeconds(10)));
            WireFormatException e = assertThrows(WireFormatException.class, () -> CtrlCheck.EXCHANGE.allgather(world.get(0),
                    new CtrlCheck(1, 7), 3, Duration.ofSeconds(10)));
            assertEquals(1, e.rank());
            assertEquals("rank 1's ctrl options message (CTRL, ctrl()) is malformed: its header says kind code 9 (CLOSE),"
                    + " expected 8", e.getMessage());
            assertFalse(other.get(20, TimeUnit.SECONDS) == null);
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aSwitchProblemKeepsItsText() {
        String problem = "the store of m=1, slot 4096 bytes, from round 3 cannot be released yet: é";
        byte[] bytes = SwitchReady.EXCHANGE.encode(new SwitchReady(problem));
        assertEquals(problem, SwitchReady.EXCHANGE.decode(bytes).problem());
        assertFalse(SwitchReady.EXCHANGE.decode(bytes).ready());
        assertTrue(new String(bytes, StandardCharsets.UTF_8).contains("cannot be released"));
    }
}
