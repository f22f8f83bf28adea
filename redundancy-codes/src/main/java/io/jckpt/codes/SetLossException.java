package io.jckpt.codes;

import java.util.List;

/**
 * A redundancy set lost more than its code rebuilds: some stripe misses more than p symbols (members
 * lost, or parts whose CRC32C does not match). Nothing was written. The caller falls back to the disk
 * level, as beyond m copies today.
 */
public final class SetLossException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String set;
    private final List<Integer> lostMembers;
    private final List<String> corruptParts;

    SetLossException(String set, List<Integer> lostMembers, List<String> corruptParts, String detail) {
        super(set + ": cannot rebuild: " + (lostMembers.isEmpty() ? "no member lost" : "members " + lostMembers + " lost")
                + (corruptParts.isEmpty() ? "" : ", corrupt (CRC32C mismatch): " + String.join(", ", corruptParts)) + "; "
                + detail);
        this.set = set;
        this.lostMembers = List.copyOf(lostMembers);
        this.corruptParts = List.copyOf(corruptParts);
    }

    /** @return the set, as the caller named it */
    public String set() {
        return set;
    }

    /** @return the members lost, by index in the set */
    public List<Integer> lostMembers() {
        return lostMembers;
    }

    /** @return the parts found corrupt among the survivors */
    public List<String> corruptParts() {
        return corruptParts;
    }
}
