package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses a host list option such as {@code --host h1,h2:2} or {@code --spare-hosts s1,s2}: hosts
 * separated by commas, each with an optional {@code :N} slot count (default 1); a host named twice gets
 * the sum of its slots. Problems are {@link UsageException}s naming the option and the entry.
 */
public final class HostListOption {
    private HostListOption() {
    }

    /**
     * @param option the option's name, for messages and the list's source ({@code "--host"})
     * @param value  the option's value
     * @return the hosts
     * @throws UsageException for an empty list, an empty entry, a bad name or a bad slot count
     */
    public static HostList parse(String option, String value) throws UsageException {
        if (value == null || value.isBlank()) {
            throw new UsageException(option + " needs a list of hosts such as h1,h2:2");
        }
        List<Host> hosts = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            String e = entry.strip();
            if (e.isEmpty()) {
                throw new UsageException(option + " '" + value + "': empty host entry");
            }
            String name = e;
            int slots = 1;
            int colon = e.indexOf(':');
            if (colon >= 0) {
                name = e.substring(0, colon);
                slots = HostFile.count(option + " '" + value + "'", e.substring(colon + 1), "'" + e + "'", "slots");
            }
            if (!Host.validName(name)) {
                throw new UsageException(option + " '" + value + "': bad host name '" + name
                        + "' (letters, digits, '.', '_', '-', starting with a letter or digit)");
            }
            hosts.add(new Host(name, slots));
        }
        return HostList.of(option, hosts);
    }
}
