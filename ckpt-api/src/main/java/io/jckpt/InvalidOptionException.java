package io.jckpt;

/** An option value that is out of range, or options that contradict each other or the world. */
public final class InvalidOptionException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final String option;

    /**
     * @param option the option's name as in the builder, e.g. {@code "replicas"}
     * @param value  the rejected value
     * @param reason what is required, e.g. {@code "must be >= 0"}
     */
    public InvalidOptionException(String option, Object value, String reason) {
        super("invalid option " + option + "=" + value + ": " + reason);
        this.option = option;
    }

    /** @return the option's name */
    public String option() {
        return option;
    }
}
