package io.jckpt.data;

/**
 * Why an object graph cannot be written or restored, with the path to the object concerned
 * ({@code .field}, {@code [3]}, {@code ["key"]}) prepended level by level as it travels up the
 * recursion, so the normal path pays nothing for it. Turned into an {@link io.jckpt.UnsupportedDataException}
 * or {@link io.jckpt.DataMismatchException} naming the tag by {@link StateGraphAdapter}.
 */
final class GraphRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean mismatch;
    private final String saved;
    private String path = "";
    private String hint = "";

    /** @param reason why, and what to do instead */
    GraphRefusal(String reason) {
        super(reason, null, false, false);
        this.mismatch = false;
        this.saved = null;
    }

    private GraphRefusal(String saved, String actual) {
        super(actual, null, false, false);
        this.mismatch = true;
        this.saved = saved;
    }

    /**
     * A target that differs from what was saved in a way rollback cannot bridge.
     *
     * @param saved  what was saved
     * @param actual what the program holds
     * @return the refusal
     */
    static GraphRefusal mismatch(String saved, String actual) {
        return new GraphRefusal(saved, actual);
    }

    /**
     * @param segment the path segment of the level the refusal passes through
     * @return this
     */
    GraphRefusal at(String segment) {
        path = segment + path;
        return this;
    }

    /** @return the path below the root, e.g. {@code .particles[3].rng}, empty at the root */
    String path() {
        return path;
    }

    boolean isMismatch() {
        return mismatch;
    }

    String saved() {
        return saved;
    }

    /**
     * @param text a hint about the level it passes through, appended to the reason
     * @return this
     */
    GraphRefusal hint(String text) {
        hint = hint + " " + text;
        return this;
    }

    String reason() {
        return getMessage() + hint;
    }
}
