package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CtrlOptions;
import io.jckpt.InvalidOptionException;
import io.jckpt.spi.RankCollective;
import io.jckpt.image.ImageKey;
import io.jckpt.wire.CtrlCheck;
import io.jckpt.wire.OpenStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The check that every rank runs with the same global options: at open, from the fingerprints the
 * open exchange carried; at ctrl, with an exchange of its own ({@link CtrlCheck}: the fingerprint of the
 * options the ctrl asks for and the step of the rank's last here(), compared by {@link StepCheck}). Either way
 * a difference is an {@link InvalidOptionException} on every rank.
 */
final class OptionsAgreement {
    private OptionsAgreement() {
    }

    /**
     * @param statuses every rank's open status
     * @param options  this rank's options
     * @param rank     this rank
     */
    static void atOpen(List<OpenStatus> statuses, CkptOptions options, int rank) {
        long mine = options.globalFingerprint();
        List<Integer> differ = new ArrayList<>();
        for (int r = 0; r < statuses.size(); r++) {
            if (statuses.get(r).fingerprint() != mine) {
                differ.add(r);
            }
        }
        if (!differ.isEmpty()) {
            throw new InvalidOptionException("options", options.globalSummary(), "rank " + rank + ": ranks " + differ
                    + " opened with different global options than this rank (" + options.globalSummary()
                    + "); options must be the same on every rank");
        }
    }

    /**
     * Every rank authenticates the job's checkpoints with the same key (one rank with another key would
     * refuse every copy the others wrote, and they its).
     *
     * @param statuses every rank's open status
     * @param key      this rank's image key
     * @param rank     this rank
     * @throws CkptException naming the ranks whose key differs
     */
    static void sameKeyAtOpen(List<OpenStatus> statuses, ImageKey key, int rank) {
        List<String> differ = new ArrayList<>();
        for (int r = 0; r < statuses.size(); r++) {
            if (statuses.get(r).keyId() != key.id()) {
                differ.add("rank " + r + " with key " + HexFormat.of().toHexDigits(statuses.get(r).keyId()));
            }
        }
        if (!differ.isEmpty()) {
            throw new CkptException("rank " + rank + " authenticates checkpoints with job key " + key.idHex() + ", "
                    + String.join(", ", differ) + ": every rank must use the same job key (the launcher's, or the"
                    + " job's key file job.key in the disk directory; docs/design.md, \"Authenticated checkpoints\")");
        }
    }

    /**
     * The ctrl exchange (a collective).
     *
     * @param exchange the ranks' collective
     * @param next     the options this rank's ctrl asks for
     * @param ctrl     the ctrl, for the error
     * @param rank     this rank
     * @param round    the round the ctrl comes after
     * @param step     the program's step at that round (the last here())
     * @param timeout  the exchange's bound
     */
    static void atCtrl(RankCollective exchange, CkptOptions next, CtrlOptions ctrl, int rank, long round, long step,
                       Duration timeout) {
        List<CtrlCheck> all = CtrlCheck.EXCHANGE.allgather(exchange, new CtrlCheck(next.globalFingerprint(), step), round,
                timeout);
        for (int r = 0; r < all.size(); r++) {
            if (all.get(r).fingerprint() != next.globalFingerprint()) {
                throw new InvalidOptionException("ctrl", ctrl, "rank " + rank + ": rank " + r
                        + " asked for different options in the same ctrl call; ctrl must be the same on every rank");
            }
        }
        StepCheck.compare(rank, round, StepCheck.steps(all, CtrlCheck::step), "at ctrl() after round " + round);
    }
}
