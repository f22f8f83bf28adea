package io.jckpt.chaos;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A kind of failure the campaign injects from outside the launcher, with the configuration the job
 * runs with and what the run may end in. {@code failures} and {@code restarts} size the run's time
 * budget; {@code mayFailClearly} says whether a clear error can be acceptable at all (then only when
 * the failure exceeded what the configuration survives at the moment it was injected, decided by
 * {@link Injector} from the disk generations present).
 */
enum Scenario {
    NONE("none", "no failure (the reference configuration)", 1, 0, 0),
    KILL1("kill1", "SIGKILL of one rank", 1, 1, 0),
    KILL2_ADJACENT("kill2adj", "SIGKILL of two adjacent ranks at once (stores kept)", 1, 1, 0),
    KILL2_SPREAD("kill2spread", "SIGKILL of two non-adjacent ranks at once (stores kept)", 1, 1, 0),
    KILL_ALL("killall", "SIGKILL of every rank (stores kept: relaunch from node-local stores)", 1, 1, 0),
    NODE1("node1", "node loss: SIGKILL of one rank and its store wiped", 1, 1, 0),
    NODE2_ADJACENT("node2adj", "two adjacent node losses with m = 2", 2, 1, 0),
    NODE2_SPREAD("node2spread", "two non-adjacent node losses with m = 1", 1, 1, 0),
    BEYOND_M("beyond-m", "m + 1 = 2 adjacent node losses with m = 1: the disk generation, or a clear error"
            + " before the first one", 1, 1, 0),
    TOTAL("total", "every rank killed and every store wiped: the disk generation, or a clear error before the"
            + " first one", 1, 1, 0),
    SIGSTOP("sigstop", "SIGSTOP of one rank (launcher with --detector heartbeat)", 1, 1, 0),
    STARTUP("startup", "SIGKILL of one rank during start-up (before its first checkpoint)", 1, 1, 0),
    STARTUP_STOP("startup-stop", "SIGSTOP of one rank during start-up (launcher with --detector heartbeat)", 1, 1, 0),
    RECOVERY("recovery", "SIGKILL of one rank, then of another (or the same) during the recovery", 1, 2, 0),
    FLUSH("flush", "SIGKILL of a rank while it writes a disk generation (disk ratio 1)", 1, 1, 0),
    FLIP("flip", "a flipped byte in a rank file of the newest disk generation, then total loss", 1, 1, 0),
    LAUNCHER("launcher", "SIGKILL of the launcher, the job restarted with the same --job-id", 1, 1, 1),
    LAUNCHER_WIPE("launcher-wipe", "SIGKILL of the launcher, every store wiped, the job restarted with the same"
            + " --job-id (from disk, or a clear error before the first generation)", 1, 1, 1),
    DISK_FULL("diskfull", "the disk directory on a tiny tmpfs (full), and a node loss", 1, 1, 0),
    KRYO_UNREGISTERED("kryo-unreg", "the journal not registered with Kryo (the state graph saves it), and a node loss", 1, 1, 0),
    GROW("grow", "the state growing by 3/4 x elements bytes per iteration (--grow): SIGKILL of one rank (half the"
            + " runs with its store wiped) one to three rounds after the first slot growth, so that the slots grow"
            + " again after the recovery, once the restored round's slot was written again", 1, 1, 0),
    CORPUS("corpus", "a user program of the corpus (io.jckpt.chaos.corpus) with the job's settings (--replicas 1, no"
            + " disk), drawn per run, and a failure drawn per run (SIGKILL of one rank, a node loss, two non-adjacent"
            + " node losses, or SIGSTOP of one rank with the heartbeat detector) at a random moment between the ranks"
            + " running and the program's result; the result compared with the same program's failure-free run", 1, 1, 0),
    HOST("host", "across hosts: a whole host of the job lost (its init SIGKILLed: its ranks and its /dev/shm gone) at a"
            + " seeded moment, start-up included; its ranks restart on the spare host", 1, 1, 0),
    KILL_HOST("kill-host", "across hosts: SIGKILL of one rank, then 100-800 ms later another host lost (start-up"
            + " included)", 1, 2, 0),
    PARTITION("partition", "across hosts: a host cut off from the others and the launcher by a network partition,"
            + " never healed during the job (start-up included); detected by the heartbeat", 1, 1, 0),
    HOSTS2("hosts2", "across hosts: two hosts lost at the same instant (loseNodes) with m = 2 and the shared disk"
            + " (start-up included); their ranks restart on two spare hosts (with 2 job hosts: from the disk"
            + " generation, or a clear error before the first one)", 2, 1, 0),
    HOST_RELAUNCH("host-relaunch", "across hosts: --on-failure relaunch, a whole host lost at a seeded moment (start-up"
            + " included); every rank restarts, the lost host's on the spare host", 1, 1, 0),
    HOST_RESTART("host-restart", "across hosts: a host lost, then 0-600 ms after the recovery began, while the ranks"
            + " restart, another job host or (half the runs) the spare the first one's ranks restart on (m = 2, the"
            + " shared disk)", 2, 2, 0),
    HOST_ROLLBACK("host-rollback", "across hosts: a host lost, then another 0-1500 ms after the new world exists, while"
            + " the ranks restore and receive their copies (m = 2, the shared disk)", 2, 2, 0),
    HOST_FLUSH("host-flush", "across hosts: a rank's host lost as that rank creates its file of a disk generation"
            + " (disk ratio 1, the shared disk)", 1, 1, 0);

    /** The scenarios of a campaign across test hosts when none are named ({@code bin/chaos --hosts N}). */
    static final List<Scenario> ACROSS_HOSTS = List.of(HOST, KILL_HOST, PARTITION, HOSTS2, SIGSTOP, GROW, HOST_RELAUNCH,
            HOST_RESTART, HOST_ROLLBACK, HOST_FLUSH);

    final String label;
    final String description;
    final int replicas;
    final int failures;
    final int restarts;

    Scenario(String label, String description, int replicas, int failures, int restarts) {
        this.label = label;
        this.description = description;
        this.replicas = replicas;
        this.failures = failures;
        this.restarts = restarts;
    }

    /**
     * @param elements elements per array
     * @return bytes the chaos program's state grows by per iteration beyond its journal's own entry
     *         ({@code --grow}): 0 but for {@link #GROW}
     */
    int growBytes(int elements) {
        // about 1/37 of the image per iteration: with here() every 2 iterations the slots grow every 7 to 10
        // rounds, twice or more in the quick form's 20 rounds
        return this == GROW ? Math.max(8, (int) (3L * elements / 4 / 8 * 8)) : 0;
    }

    /** Whether a clear error can be acceptable for this scenario (see {@link Injector}). */
    boolean mayFailClearly() {
        return this == BEYOND_M || this == TOTAL || this == LAUNCHER_WIPE || this == FLIP || this == HOSTS2
                || this == HOST_RESTART || this == HOST_ROLLBACK;
    }

    /** Whether it injects into test hosts (only with {@code --hosts}). */
    boolean hostOnly() {
        return this == HOST || this == KILL_HOST || this == PARTITION || this == HOSTS2 || this == HOST_RELAUNCH
                || this == HOST_RESTART || this == HOST_ROLLBACK || this == HOST_FLUSH;
    }

    /**
     * Whether it runs across test hosts: the host scenarios and those whose failure is a rank's process (a
     * SIGKILL keeps its store on its host; {@code grow} wipes a store in its host's /dev/shm), not those that
     * wipe stores on the launcher's host, kill the launcher, mount a disk or run the corpus.
     */
    boolean acrossHosts() {
        return switch (this) {
            case NONE, KILL1, KILL2_ADJACENT, KILL2_SPREAD, SIGSTOP, STARTUP, STARTUP_STOP, RECOVERY, GROW -> true;
            default -> hostOnly();
        };
    }

    /** Spare hosts in the hostfile beyond the job hosts: where the ranks of the hosts it loses restart. */
    int spareHosts() {
        return this == HOSTS2 || this == HOST_RESTART || this == HOST_ROLLBACK ? 2 : hostOnly() ? 1 : 0;
    }

    /** Whether the launcher runs with the campaign's heartbeat detector (a SIGSTOPped rank is found by it alone). */
    boolean stops() {
        return this == SIGSTOP || this == STARTUP_STOP;
    }

    /** Whether the failure is found by the heartbeat detector alone (its timeout is part of the budget). */
    boolean silent() {
        return stops() || this == PARTITION;
    }

    /** The scenarios named in {@code text} ("a,b"), or every one for null. */
    static List<Scenario> parseList(String text) {
        return parseList(text, false);
    }

    /**
     * The scenarios named in {@code text} ("a,b"), or the default for null: every one on one host, else
     * {@link #ACROSS_HOSTS}.
     *
     * @throws IllegalArgumentException an unknown scenario, a host scenario on one host, or a scenario that
     *                                  cannot run across hosts with {@code hosts}
     */
    static List<Scenario> parseList(String text, boolean hosts) {
        if (text == null) {
            return hosts ? ACROSS_HOSTS : Arrays.stream(values()).filter(s -> !s.hostOnly()).toList();
        }
        List<Scenario> list = Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .map(Scenario::of).toList();
        for (Scenario s : list) {
            if (hosts && !s.acrossHosts()) {
                throw new IllegalArgumentException("--scenarios: '" + s.label + "' does not run across hosts (it wipes"
                        + " stores on the launcher's host, kills the launcher, mounts a disk or runs the corpus); across"
                        + " hosts: " + Arrays.stream(values()).filter(Scenario::acrossHosts).map(x -> x.label)
                        .collect(Collectors.joining(",")));
            }
            if (!hosts && s.hostOnly()) {
                throw new IllegalArgumentException("--scenarios: '" + s.label + "' needs test hosts: add --hosts N");
            }
        }
        return list;
    }

    static Scenario of(String label) {
        for (Scenario s : values()) {
            if (s.label.equals(label.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + label + "'; known: "
                + Arrays.stream(values()).map(s -> s.label).collect(Collectors.joining(",")));
    }
}
