package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlProtocol;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * One recovery's question across hosts: which of the hosts concerned live now. Two kinds of evidence,
 * gathered at once: a rank or standby of the host heard on its control connection after the check began
 * (each is sent a {@link ControlProtocol#PING}, a round trip on an open connection), and the remote
 * shell's probe ({@code true}), run only for a host with no such connection, or whose connections did
 * not answer within {@link #PING_GRACE_MILLIS}. A host is ALIVE at its first evidence, LOST when its
 * probe fails or overruns its bound. The other hosts (spares without a standby) are probed once a host
 * is found lost, or at once when the caller says so (an agent ended as a lost session).
 *
 * <p>The supervisor waits ({@link #await}) until every host concerned has a verdict, or until the failed
 * ranks can be placed without the hosts still silent: at once after the pings' grace when only failed
 * ranks' hosts ({@link #suspect suspects}) are silent (their verdict would only let their ranks restart
 * in place rather than on another host), else after {@link #HANG_GRACE_MILLIS} (a silent host still
 * running ranks of the job would fail them in this recovery if it were lost). A host that hangs (a node
 * gone without a reset, a partition, a stopped sshd) then costs a recovery that grace instead of the
 * probe's whole bound. Verdicts that come after the wait reach the job as {@link JobEvent.HostVerdict}.
 * Thread-safe: the control reader threads report what they hear, the process reaper the probes' ends,
 * the supervisor waits.
 */
final class HostCheck {
    /** A host's verdict. */
    enum Verdict { ALIVE, LOST }

    /**
     * How a check ended for the supervisor.
     *
     * @param verdicts   the hosts decided, ALIVE or LOST
     * @param lostWhy    why each LOST host is lost
     * @param unanswered the hosts concerned still without a verdict (their probes go on)
     * @param tookNanos  from the check's beginning (the first failure's probe, or the pings) to its end
     */
    record Outcome(Map<String, Verdict> verdicts, Map<String, String> lostWhy, Set<String> unanswered,
                   long tookNanos) {
        /** @return the hosts found lost */
        Set<String> lost() {
            Set<String> lost = new TreeSet<>();
            verdicts.forEach((h, v) -> {
                if (v == Verdict.LOST) {
                    lost.add(h);
                }
            });
            return lost;
        }
    }

    /** How long a pinged host's connections may take to answer before its remote shell is probed too. */
    static final long PING_GRACE_MILLIS = 200;
    /** After this long, hosts still silent are left to their probes if the failed ranks fit elsewhere. */
    static final long HANG_GRACE_MILLIS = 1_000;

    private final RemoteCalls calls;
    private final String shell;
    private final long probeMillis;
    private final Consumer<JobEvent> late;
    private final long startNanos = System.nanoTime();
    // guarded by this
    private final Map<Integer, String> hostOfClaim = new HashMap<>();
    private final Set<String> concerned = new TreeSet<>();
    private final Set<String> pinged = new TreeSet<>();
    private final Set<String> probing = new TreeSet<>();
    private final Set<String> others = new TreeSet<>();
    private final Set<String> suspects = new TreeSet<>();
    private final Map<String, Verdict> verdicts = new TreeMap<>();
    private final Map<String, String> lostWhy = new TreeMap<>();
    private boolean othersProbed;
    private boolean closed;

    /**
     * @param calls       runs the probes
     * @param shell       the remote shell as the user gave it (for the reason a host is lost)
     * @param probeMillis a probe's bound
     * @param late        where verdicts go once the supervisor stopped waiting
     */
    HostCheck(RemoteCalls calls, String shell, long probeMillis, Consumer<JobEvent> late) {
        this.calls = calls;
        this.shell = shell;
        this.probeMillis = probeMillis;
        this.late = late;
    }

    /**
     * Asks {@code host} whether it lives: a PING on each of {@code connections} (claim: rank, or a
     * standby's negative claim), or its probe when none can be sent.
     */
    synchronized void ask(String host, Map<Integer, ControlChannel> connections) {
        concerned.add(host);
        boolean sent = false;
        for (Map.Entry<Integer, ControlChannel> c : connections.entrySet()) {
            hostOfClaim.put(c.getKey(), host);
            try {
                c.getValue().send(ControlProtocol.PING, new byte[0]);
                sent = true;
            } catch (IOException e) {
                // that one is gone: its host may be too
            }
        }
        if (sent) {
            pinged.add(host);
        } else {
            probe(host);
        }
    }

    /** {@code host} runs a failed rank: the recovery needs its verdict only to restart that rank in place. */
    synchronized void suspect(String host) {
        suspects.add(host);
    }

    /** Hosts asked only once a host is found lost (or at once: {@link #probeOthers()}), by their probe. */
    synchronized void later(Collection<String> hosts) {
        others.addAll(hosts);
        others.removeAll(concerned);
    }

    /** Probes the hosts given to {@link #later} now. */
    synchronized void probeOthers() {
        othersProbed = true;
        for (String host : others) {
            concerned.add(host);
            probe(host);
        }
    }

    /** A control reader heard {@code claim} (a rank, or a standby's negative claim). */
    synchronized void heard(int claim) {
        String host = hostOfClaim.get(claim);
        if (host != null) {
            decide(host, Verdict.ALIVE, null);
        }
    }

    private void probe(String host) {
        if (!probing.add(host)) {
            return;
        }
        calls.start(host, List.of("true"), probeMillis, ended -> probed(ended));
    }

    private synchronized void probed(RemoteCalls.Ended ended) {
        if (ended.ok()) {
            decide(ended.host(), Verdict.ALIVE, null);
        } else {
            decide(ended.host(), Verdict.LOST, ended.overdue()
                    ? "it did not answer `" + shell + "` within " + probeMillis / 1000 + " s"
                    : "it does not answer `" + shell + "`");
        }
    }

    private void decide(String host, Verdict verdict, String why) {
        if (verdicts.containsKey(host)) {
            return; // the first evidence decides
        }
        verdicts.put(host, verdict);
        if (why != null) {
            lostWhy.put(host, why);
        }
        if (closed) {
            late.accept(new JobEvent.HostVerdict(host, verdict == Verdict.ALIVE, why));
        }
        notifyAll();
    }

    /**
     * Waits until every host concerned has a verdict, or until {@code placeable} (lost hosts, unanswered
     * hosts) says the failed ranks fit on the hosts found alive: from the pings' grace on (counted from this
     * call, the pings being sent just before it) when only suspects are silent, else from
     * {@link #HANG_GRACE_MILLIS} after the check's beginning; bounded by the probes' bound in all. Later
     * verdicts go to the job.
     *
     * @throws InterruptedException when interrupted (the check is closed)
     */
    synchronized Outcome await(BiPredicate<Set<String>, Set<String>> placeable) throws InterruptedException {
        // the pings went out just before this wait (the check may have begun earlier, with probes)
        long pingGrace = System.nanoTime() + PING_GRACE_MILLIS * 1_000_000L;
        long hangGrace = Math.max(startNanos + HANG_GRACE_MILLIS * 1_000_000L, pingGrace);
        long bound = pingGrace + probeMillis * 1_000_000L; // the last probe a silent ping may start, overrun
        try {
            for (;;) {
                long now = System.nanoTime();
                calls.expireOverdue(now);
                if (now - pingGrace >= 0) {
                    for (String host : pinged) {
                        if (!verdicts.containsKey(host)) {
                            probe(host); // its connections are silent: the remote shell says more
                        }
                    }
                }
                if (!othersProbed && verdicts.containsValue(Verdict.LOST)) {
                    probeOthers(); // hosts are often lost together: every other one is asked
                }
                Set<String> unanswered = unanswered();
                long grace = suspects.containsAll(unanswered) ? pingGrace : hangGrace;
                if (unanswered.isEmpty() || now - bound >= 0
                        || (now - grace >= 0 && placeable.test(lostNow(), unanswered))) {
                    return new Outcome(Map.copyOf(verdicts), Map.copyOf(lostWhy), unanswered, now - startNanos);
                }
                long next = calls.nextDeadline(bound);
                for (long g : new long[] {pingGrace, hangGrace}) {
                    if (g - now > 0 && g - next < 0) {
                        next = g;
                    }
                }
                long waitNanos = Math.max(1_000_000L, next - now);
                wait(waitNanos / 1_000_000L, (int) (waitNanos % 1_000_000L));
            }
        } finally {
            closed = true;
        }
    }

    private Set<String> unanswered() {
        Set<String> unanswered = new TreeSet<>(concerned);
        unanswered.removeAll(verdicts.keySet());
        return unanswered;
    }

    private Set<String> lostNow() {
        Set<String> lost = new TreeSet<>();
        verdicts.forEach((h, v) -> {
            if (v == Verdict.LOST) {
                lost.add(h);
            }
        });
        return lost;
    }

}
