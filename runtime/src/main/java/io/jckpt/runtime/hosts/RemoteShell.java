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
 * <p>Inside a SLURM allocation the agent is {@link #SRUN}: a job step of one task on the host, which
 * executes its arguments itself (no remote shell joins them), so the command goes as the words
 * {@code sh -c SCRIPT} ({@link #wordsExecuted}).
 *
 * @param agent         the agent's words, e.g. {@code [ssh, -o, BatchMode=yes]}
 * @param wordsExecuted whether the agent executes the words after the host as a program and its arguments
 *                      (srun) rather than joining them into a line for a remote shell (ssh)
 */
public record RemoteShell(List<String> agent, boolean wordsExecuted) {
    /** The default agent: ssh that fails instead of asking for a password, or after 10 s without a connection. */
    public static final RemoteShell SSH = new RemoteShell(List.of("ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"));

    /**
     * The agent inside a SLURM allocation: one step of one task on the host, sharing the allocation's CPUs
     * with the job's other steps ({@code --overlap}). Quiet twice: srun's own messages, errors included, are
     * not shown (it would report {@value #REMOTE_EXIT_OK} at every rank's end); the launcher names the host
     * and the agent when a host does not answer.
     */
    public static final RemoteShell SRUN = new RemoteShell(List.of("srun", "--overlap", "--nodes=1", "--ntasks=1",
            "--quiet", "--quiet", "--nodelist={host}"), true);

    /**
     * The exit status a command started with {@link #commandReportingExit} gives for its own exit 0 when the
     * agent is srun: srun exits 0 also when the step ended because its node failed, without the task's
     * status; {@link #localExit} maps it back.
     */
    public static final int REMOTE_EXIT_OK = 97;

    /** An agent that joins the command into a line for the remote shell (ssh's way). */
    public RemoteShell(List<String> agent) {
        this(agent, false);
    }

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
        return line(host, environment, secretNames, command, false);
    }

    private List<String> line(String host, Map<String, String> environment, List<String> secretNames,
                              List<String> command, boolean reportExit) {
        StringBuilder remote = new StringBuilder();
        for (String name : secretNames) {
            requireName(name);
            remote.append("IFS= read -r ").append(name).append(" && export ").append(name).append(" && ");
        }
        boolean wait = reportExit && wordsExecuted;
        remote.append(wait ? "env" : "exec env");
        environment.forEach((name, value) -> {
            requireName(name);
            remote.append(' ').append(quote(name + "=" + value));
        });
        for (String word : command) {
            remote.append(' ').append(quote(word));
        }
        if (wait) {
            remote.append("; s=$?; [ $s -eq 0 ] && exit " + REMOTE_EXIT_OK + "; exit $s");
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
        if (wordsExecuted) {
            line.addAll(List.of("sh", "-c", remote.toString()));
        } else {
            line.add("sh -c " + quote(remote.toString()));
        }
        return line;
    }

    /**
     * As {@link #command}, for a process whose exit status counts (a rank's, a standby's): with srun the
     * remote shell waits for the command and exits {@value #REMOTE_EXIT_OK} for its exit 0, so that srun's own
     * exit 0 (a node failure) is told apart; read the agent's status with {@link #localExit}. With ssh the
     * same as {@link #command} (ssh's own failure is 255).
     */
    public List<String> commandReportingExit(String host, Map<String, String> environment, List<String> secretNames,
                                             List<String> command) {
        return line(host, environment, secretNames, command, true);
    }

    /**
     * The exit status of a command started with {@link #commandReportingExit}, from its agent's: with srun,
     * {@value #REMOTE_EXIT_OK} is the command's 0, and srun's own 0 (the step ended without the command's
     * status: its node failed or the step was cancelled) is 255, the status of a lost host or session, as
     * ssh's; any other status is the command's (a signal's {@code 128+N} included).
     */
    public int localExit(int agentStatus) {
        if (!wordsExecuted) {
            return agentStatus;
        }
        return agentStatus == REMOTE_EXIT_OK ? 0 : agentStatus == 0 ? 255 : agentStatus;
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
