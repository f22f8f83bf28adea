package io.jckpt.policy;

import io.jckpt.RecoveryFallback;
import io.jckpt.disk.DiskSelection;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.wire.OpenStatus;
import java.util.List;

/**
 * Where an open restores from: a pure function of what every rank reported in the open's status
 * exchange (and of the plan and disk selection computed from it), so every rank takes the same
 * decision. The order is the paper's Figure 4: memory, else disk, else a clean start when nothing was
 * ever promised ({@link #promised}), else the checkpoint is lost ({@link Source#NOT_RECOVERABLE}, or
 * a clean start when {@link RecoveryFallback#CLEAN_START} is configured).
 *
 * @param source where from
 * @param round  the round restored (0 for a clean start or a lost checkpoint)
 * @param reason why nothing was restorable (a clean start or a lost checkpoint), else empty
 * @param configuredFallback true for a clean start chosen only because {@link RecoveryFallback#CLEAN_START} is configured
 */
record RecoveryDecision(RecoveryDecision.Source source, long round, String reason, boolean configuredFallback) {
    /** The outcome. */
    enum Source {
        /** Every rank restores the plan's round from the in-memory level. */
        MEMORY,
        /** Every rank restores the selected disk generation. */
        DISK,
        /** Nothing to restore: the program starts from the beginning. */
        CLEAN_START,
        /** A checkpoint was promised and neither level can restore it. */
        NOT_RECOVERABLE
    }

    /**
     * Decides.
     *
     * @param statuses  every rank's open status, indexed by rank
     * @param plan      the in-memory plan, or null when no rank holds a copy (nothing was planned)
     * @param selection the disk level's selection, or null when the disk level is off
     * @param fallback  what to do when a promised checkpoint is lost
     * @return the decision, the same on every rank for the same input
     */
    static RecoveryDecision decide(List<OpenStatus> statuses, RollbackPlan plan, DiskSelection selection,
                                   RecoveryFallback fallback) {
        if (plan != null && plan.recoverable()) {
            return new RecoveryDecision(Source.MEMORY, plan.round(), "", false);
        }
        if (selection instanceof DiskSelection.Restore restore) {
            return new RecoveryDecision(Source.DISK, restore.round(), "", false);
        }
        long copiesAnywhere = 0;
        for (OpenStatus s : statuses) {
            copiesAnywhere += s.copiesHeld();
        }
        String lostFromMemory = plan == null ? "no rank holds an in-memory checkpoint" : describeLost(plan);
        String why = "memory: " + lostFromMemory + "; disk: " + (selection == null ? "level off"
                : describeNothing((DiskSelection.NothingRestorable) selection));
        if (!promised(statuses, copiesAnywhere)) {
            return new RecoveryDecision(Source.CLEAN_START, 0, copiesAnywhere == 0 ? "no rank holds a checkpoint"
                    : "no checkpoint round was ever complete on every rank", false);
        }
        if (fallback == RecoveryFallback.CLEAN_START) {
            return new RecoveryDecision(Source.CLEAN_START, 0, why, true);
        }
        return new RecoveryDecision(Source.NOT_RECOVERABLE, 0, why, false);
    }

    /** @return why no disk generation restores, with each generation passed over (its round, ranks, files and why) */
    private static String describeNothing(DiskSelection.NothingRestorable nothing) {
        return nothing.reason() + (nothing.rejected().isEmpty() ? "" : " (" + String.join("; ", nothing.rejected()) + ")");
    }

    /**
     * Whether a checkpoint was promised: a round complete on every rank (recorded by some node), or a
     * disk generation. Decided from what is recorded, never from what is missing: a store can be
     * missing because its node was lost, or because an earlier recovery's clean start deleted it
     * and a failure stopped that recovery before every rank had done the same, and a new rank's
     * empty store holds nothing of its own whether or not its lost predecessor had a round. Without
     * a ring (m = 0 on several ranks) no node learns G: there the old evidence stands, a store that
     * survived with no complete round of its own (it never completed one).
     */
    static boolean promised(List<OpenStatus> statuses, long copiesAnywhere) {
        boolean unreplicated = false;
        for (OpenStatus s : statuses) {
            if (s.roundCompleteEverywhere()) {
                return true;
            }
            for (OpenStatus.Layout l : s.layouts()) {
                unreplicated |= l.replicas() == 0 && statuses.size() > 1;
            }
        }
        if (hasAnyGeneration(statuses)) {
            return true;
        }
        return unreplicated && copiesAnywhere > 0 && !neverCompletedAnywhere(statuses);
    }

    private static boolean neverCompletedAnywhere(List<OpenStatus> statuses) {
        for (OpenStatus s : statuses) {
            if (s.slotCapacity() > 0 && s.ownNewestComplete() == 0) {
                return true;
            }
        }
        return false;
    }

    static boolean hasAnyGeneration(List<OpenStatus> statuses) {
        for (OpenStatus s : statuses) {
            if (s.hasDiskInventory() && !s.diskInventory().generations().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static String describeLost(RollbackPlan plan) {
        StringBuilder text = new StringBuilder("data of ");
        plan.lost().forEach(l -> text.append("rank ").append(l.rank()).append(" (").append(l.reason()).append(") "));
        return text.toString().trim();
    }
}
