package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How the launcher runs a command on a host ({@code --rsh CMD}), as mpirun's remote-shell agent: the
 * agent's words, then the host (or the agent's {@code {host}} placeholder replaced by it), then the
 * command as one shell-quoted string, which the remote side's shell splits again. The default is
 * {@code ssh -o BatchMode=yes -o ConnectTimeout=10} (never a password prompt, and a host that drops
 * the connection's packets, down or cut off, found in 10 s rather than the kernel's 2 minutes);
 * {@code ssh -F FILE}, an {@code srun}-style agent or {@code nsenter --target {host} ...} fit the same form.
 *
 * <p>Secrets never go on a command line, local or remote: {@link #command} takes the environment as
 * two maps, plain variables (set with {@code env NAME=VALUE} in the remote command) and secret ones,
 * which the remote shell reads from its standard input, one line each, before it executes the command
 * ({@link #stdinSecrets} is what the launcher writes).
 *
 * @param agent the agent's words, e.g. {@code [ssh, -o, BatchMode=yes]}
 */
public record RemoteShell(List<String> agent) {
    /** The default agent: ssh that fails instead of asking for a password, or after 10 s without a connection. */
    public static final RemoteShell SSH = new RemoteShell(List.of("ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"));

    /** The placeholder an agent may contain for the host. */
    public static final String HOST_PLACEHOLDER = "{host}";

    /** @throws IllegalArgumentException for an empty agent */
    public RemoteShell {
        agent = List.copyOf(agent);
        if (agent.isEmpty() || agent.get(0).isBlank()) {
            throw new IllegalArgumentException("the remote shell agent is empty");
        }
    }

    /**
     * Reads {@code --rsh CMD}: words separated by spaces; single or double quotes keep a word together.
     *
     * @param text the option's value
     * @return the agent
     * @throws UsageException for an empty value or an unbalanced quote
     */
    public static RemoteShell parse(String text) throws UsageException {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new UsageException("--rsh '" + text + "': unbalanced " + quote);
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (words.isEmpty()) {
            throw new UsageException("--rsh needs a command, e.g. --rsh 'ssh -F /path/ssh_config'");
        }
        return new RemoteShell(words);
    }

    /**
     * The local process's command line that runs {@code command} on {@code host}.
     *
     * @param host        the host
     * @param environment plain variables for the command (may appear on a command line)
     * @param secretNames variables the remote shell reads from its standard input, in this order
     * @param command     the command's words
     * @return the agent's command line
     */
    public List<String> command(String host, Map<String, String> environment, List<String> secretNames,
                                List<String> command) {
        StringBuilder remote = new StringBuilder();
        for (String name : secretNames) {
            requireName(name);
            remote.append("IFS= read -r ").append(name).append(" && export ").append(name).append(" && ");
        }
        remote.append("exec env");
        environment.forEach((name, value) -> {
            requireName(name);
            remote.append(' ').append(quote(name + "=" + value));
        });
        for (String word : command) {
            remote.append(' ').append(quote(word));
        }
        List<String> line = new ArrayList<>();
        boolean placed = false;
        for (String word : agent) {
            if (word.contains(HOST_PLACEHOLDER)) {
                line.add(word.replace(HOST_PLACEHOLDER, host));
                placed = true;
            } else {
                line.add(word);
            }
        }
        if (!placed) {
            line.add(host);
        }
        // sh -c so that the remote side runs the same shell whatever the user's login shell is
        line.add("sh -c " + quote(remote.toString()));
        return line;
    }

    /**
     * @param secrets the secret variables' values, in the order of {@code secretNames}
     * @return what the launcher writes to the remote shell's standard input
     */
    public static String stdinSecrets(List<String> secrets) {
        StringBuilder b = new StringBuilder();
        for (String secret : secrets) {
            if (secret.indexOf('\n') >= 0 || secret.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("a secret sent on a line must not contain a line break");
            }
            b.append(secret).append('\n');
        }
        return b.toString();
    }

    /** @return {@code word} in single quotes for a POSIX shell */
    public static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static void requireName(String name) {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("bad environment variable name '" + name + "'");
        }
    }

    /** @return the agent as the user would type it */
    @Override
    public String toString() {
        return String.join(" ", agent);
    }
}
