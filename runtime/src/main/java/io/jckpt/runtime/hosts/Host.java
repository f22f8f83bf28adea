package io.jckpt.runtime.hosts;

import java.util.regex.Pattern;

/**
 * One host of a job and how many ranks it may run (its slots), as a hostfile, {@code --host} or a SLURM
 * allocation gives them.
 *
 * @param name  the host name or address the remote shell is given; letters, digits, '.', '_', '-'
 * @param slots how many ranks it may run, at least 1
 */
public record Host(String name, int slots) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    /** @throws IllegalArgumentException for a bad name or fewer than 1 slot */
    public Host {
        if (!validName(name)) {
            throw new IllegalArgumentException("bad host name '" + name
                    + "' (letters, digits, '.', '_', '-', starting with a letter or digit)");
        }
        if (slots < 1) {
            throw new IllegalArgumentException("host " + name + ": slots must be at least 1, got " + slots);
        }
    }

    /** @return whether {@code name} is acceptable as a host name */
    public static boolean validName(String name) {
        return name != null && name.length() <= 253 && NAME.matcher(name).matches();
    }

    /** @return {@code name:slots} */
    @Override
    public String toString() {
        return name + ":" + slots;
    }
}
