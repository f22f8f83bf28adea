package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.policy.interval.IntervalDecision;
import io.jckpt.spi.Collective;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.SizeVote;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The size agreement without sockets: its pure decision logic, and its exchange over a collective
 * that answers every rank's part at once (the other ranks' parts given by the test).
 */
class SizeAgreementTest {
    private static final CkptOptions OPTIONS = CkptOptions.builder().build();

    private static byte[] vote(long overflow, long decision, long step) {
        return SizeVote.EXCHANGE.encode(new SizeVote(overflow, decision, step));
    }

    /** Rank 0 of three; ranks 1 and 2 send {@code others}. Records every call. */
    private static final class ThreeRanks implements RankCollective {
        final List<Collective> calls = new CopyOnWriteArrayList<>();
        volatile byte[][] others = {vote(0, 0, -1), vote(0, 0, -1)};
        volatile RuntimeException failure;

        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int worldSize() {
            return 3;
        }

        @Override
        public byte[][] allgather(Collective call, byte[] mine, Duration timeout) {
            calls.add(call);
            if (failure != null) {
                throw failure;
            }
            return new byte[][] {mine, others[0], others[1]};
        }
    }

    @Test
    void theLargestNeedNamesTheRankAndTheSlotsGrowByAQuarterAligned() {
        long[] needs = SizeAgreement.needs(List.of(new SizeVote(0, 7, -1), new SizeVote(5000, 0, -1),
                new SizeVote(9000, 0, -1), new SizeVote(9000, 0, -1)));
        assertArrayEquals(new long[] {0, 5000, 9000, 9000}, needs);
        assertEquals(2, SizeAgreement.largest(needs), "the lowest rank of the largest need");
        assertEquals(-1, SizeAgreement.largest(new long[] {0, 0, 0}), "every image fit");
        assertEquals(4096, SizeAgreement.sizedFor(1));
        assertEquals(4096, SizeAgreement.sizedFor(3276)); // 3276 x 1.25 = 4095
        assertEquals(8192, SizeAgreement.sizedFor(3280));
        assertEquals(12288, SizeAgreement.sizedFor(9000)); // 11250 rounded up to 4 KiB
    }

    @Test
    void anAgreementStartedAtOneHereIsTakenAtTheNext() {
        ThreeRanks ranks = new ThreeRanks();
        SizeAgreement a = new SizeAgreement(0, 0, ranks);
        try {
            assertNull(a.take(4, OPTIONS), "nothing started: nothing to take");
            a.start(4, 0, 99, -1, OPTIONS); // here() of round 5: rank 0's image fit, its decision rides along
            assertTrue(a.carriesDecisionOf(5));
            assertEquals(99, a.decisionOf(5, OPTIONS));
            assertEquals(5, a.newestWrittenEverywhere(5, OPTIONS), "every rank wrote round 5");
            List<SizeVote> agreed = a.take(5, OPTIONS);
            assertArrayEquals(new long[] {0, 0, 0}, SizeAgreement.needs(agreed));
            assertNull(a.take(5, OPTIONS), "taken once");
            assertEquals(List.of(Collective.of(Collective.Kind.SIZE_AGREEMENT, 5)), ranks.calls);
        } finally {
            a.close();
        }
    }

    @Test
    void aRoundSomeRankSkippedIsCompleteNowhere() {
        ThreeRanks ranks = new ThreeRanks();
        ranks.others = new byte[][] {vote(70_000, 0, -1), vote(0, 0, -1)};
        SizeAgreement a = new SizeAgreement(0, 0, ranks);
        try {
            a.start(8, 0, IntervalDecision.NONE, -1, OPTIONS);
            assertEquals(8, a.newestWrittenEverywhere(9, OPTIONS), "rank 1 skipped round 9: round 8 is the newest");
            long[] needs = SizeAgreement.needs(a.take(9, OPTIONS));
            assertEquals(1, SizeAgreement.largest(needs));
            assertEquals(70_000, needs[1]);
            assertFalse(a.carriesDecisionOf(9), "taken: no decision travels any more");
            assertEquals(IntervalDecision.NONE, a.decisionOf(9, OPTIONS));
        } finally {
            a.close();
        }
    }

    /** Rank 0 of one: an exchange blocks (interruptibly) until {@code answer} is counted down. */
    private static final class Blocking implements RankCollective {
        final List<Thread> ranOn = new CopyOnWriteArrayList<>();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch interrupted = new CountDownLatch(1);
        volatile CountDownLatch answer = new CountDownLatch(1);

        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int worldSize() {
            return 1;
        }

        @Override
        public byte[][] allgather(Collective call, byte[] mine, Duration timeout) {
            ranOn.add(Thread.currentThread());
            entered.countDown();
            try {
                if (!answer.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never answered");
                }
            } catch (InterruptedException e) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
                throw new CkptException("interrupted during " + call.describe(), e);
            }
            return new byte[][] {mine};
        }
    }

    @Test
    void theAgreementRunsOnANamedAgentThatCloseInterruptsAndStops() throws Exception {
        Blocking ranks = new Blocking();
        SizeAgreement a = new SizeAgreement(0, 0, ranks);
        try {
            a.start(1, 0, IntervalDecision.NONE, -1, OPTIONS);
            assertTrue(ranks.entered.await(20, TimeUnit.SECONDS));
            Thread agent = ranks.ranOn.get(0);
            assertEquals("jckpt-size-agreement-r0", agent.getName());
            assertTrue(agent.isDaemon());
        } finally {
            a.close(); // the exchange never completes: close interrupts it
        }
        Thread agent = ranks.ranOn.get(0);
        agent.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(agent.isAlive(), "stopped by close");
        assertEquals(0, ranks.interrupted.getCount(), "the blocked exchange was interrupted");
        assertThrows(CkptStateException.class, () -> a.start(2, 0, IntervalDecision.NONE, -1, OPTIONS),
                "no agreement after close");
    }

    @Test
    void aJoinThatTimesOutCancelsItsAgreementAndTheAgentRunsTheNext() throws Exception {
        // join waits exchangeTimeout + hereWaitTimeout + 1 s
        CkptOptions quick = CkptOptions.builder().exchangeTimeout(Duration.ofMillis(100))
                .hereWaitTimeout(Duration.ZERO).build();
        Blocking ranks = new Blocking();
        SizeAgreement a = new SizeAgreement(0, 0, ranks);
        try {
            a.start(1, 0, IntervalDecision.NONE, -1, quick);
            CkptException e = assertThrows(CkptException.class, () -> a.join(2, quick));
            assertEquals("rank 0: the size agreement of round 2 did not complete", e.getMessage());
            assertTrue(ranks.interrupted.await(20, TimeUnit.SECONDS),
                    "the timed-out exchange was cancelled by interrupting it");
            ranks.answer = new CountDownLatch(0);
            a.start(2, 0, 42, -1, quick);
            assertEquals(42, a.decisionOf(3, quick), "the next agreement ran");
            assertEquals(2, ranks.ranOn.size());
            assertSame(ranks.ranOn.get(0), ranks.ranOn.get(1),
                    "on the same agent: the interrupt ended one exchange only");
        } finally {
            a.close();
        }
    }

    @Test
    void aFailedExchangeIsThrownByTheHereThatJoinsIt() {
        ThreeRanks ranks = new ThreeRanks();
        CkptException failure = new CkptException("rank 2 called close() while ranks 0,1 called here()");
        ranks.failure = failure;
        SizeAgreement a = new SizeAgreement(0, 0, ranks);
        try {
            a.start(2, 0, IntervalDecision.NONE, -1, OPTIONS);
            assertSame(failure, assertThrows(CkptException.class, () -> a.take(3, OPTIONS)),
                    "the collective's own error, unchanged");
            ranks.failure = new IllegalStateException("boom");
            a.start(3, 0, IntervalDecision.NONE, -1, OPTIONS);
            CkptException e = assertThrows(CkptException.class, () -> a.join(4, OPTIONS));
            assertEquals("rank 0: the size agreement of round 4 failed: java.lang.IllegalStateException: boom",
                    e.getMessage());
        } finally {
            a.close();
        }
    }
}
