package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.util.Locale;

/** How ranks are laid on hosts ({@code --map-by}), as mpirun's {@code --map-by slot|node}. */
public enum MappingPolicy {
    /** Fill each host's slots before the next host: ranks 0,1 on a, 2,3 on b (the default). */
    SLOT,
    /** One rank per host in turn, skipping full hosts: ranks 0,2 on a, 1,3 on b. */
    NODE;

    /**
     * @param text {@code slot} or {@code node} (any case)
     * @return the policy
     * @throws UsageException naming the option and the accepted values
     */
    public static MappingPolicy parse(String text) throws UsageException {
        return switch (text == null ? "" : text.toLowerCase(Locale.ROOT)) {
            case "slot", "core" -> SLOT;
            case "node", "host" -> NODE;
            default -> throw new UsageException("--map-by must be slot or node, got '" + text + "'");
        };
    }
}
