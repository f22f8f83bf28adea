package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The launcher's host options, collected one at a time from the command line ({@link #accept}) and
 * resolved into a {@link RankMapping} once {@code -np} is known ({@link #map}):
 *
 * <ul>
 *   <li>{@code --hostfile FILE} (also {@code -hostfile}, {@code -machinefile}, {@code --machinefile}):
 *       see {@link HostFile};</li>
 *   <li>{@code --host LIST} (also {@code -host}, {@code -H}): {@code h1,h2:2}, see {@link HostListOption};</li>
 *   <li>{@code --map-by slot|node}: see {@link MappingPolicy} (default slot);</li>
 *   <li>{@code --ranks-per-node K} (also {@code -npernode}): at most K ranks per host;</li>
 *   <li>{@code --spare-hosts LIST}: hosts kept for respawns only.</li>
 * </ul>
 *
 * Hosts come from the hostfile, else {@code --host}, else a SLURM allocation in the environment
 * ({@link SlurmAllocation}), else every rank runs on the launcher's host ({@link RankMapping#local}).
 * Giving both a hostfile and {@code --host}, an option twice, or mapping options with no hosts is an error.
 */
public final class HostOptions {
    private Path hostfile;
    private String hostfileOption;
    private String hostList;
    private String hostListOption;
    private MappingPolicy policy;
    private int ranksPerNode;
    private String spareHosts;

    /**
     * Takes the host option at {@code args[i]}, if it is one.
     *
     * @param args the command line
     * @param i    the index of an option
     * @return how many arguments it used (2), or 0 when {@code args[i]} is not a host option
     * @throws UsageException for a missing or bad value, or an option given twice
     */
    public int accept(String[] args, int i) throws UsageException {
        String arg = args[i];
        switch (arg) {
            case "--hostfile", "-hostfile", "-machinefile", "--machinefile" -> {
                once(hostfile != null, arg, hostfileOption);
                hostfile = Paths.get(value(args, i));
                hostfileOption = arg;
            }
            case "--host", "-host", "-H" -> {
                once(hostList != null, arg, hostListOption);
                hostList = value(args, i);
                hostListOption = arg;
            }
            case "--map-by" -> {
                once(policy != null, arg, arg);
                policy = MappingPolicy.parse(value(args, i));
            }
            case "--ranks-per-node", "-npernode", "--npernode" -> {
                once(ranksPerNode != 0, arg, "--ranks-per-node");
                String v = value(args, i);
                try {
                    ranksPerNode = Integer.parseInt(v);
                } catch (NumberFormatException e) {
                    throw new UsageException(arg + " must be a whole number, got '" + v + "'");
                }
                if (ranksPerNode < 1) {
                    throw new UsageException(arg + " must be at least 1, got " + ranksPerNode);
                }
            }
            case "--spare-hosts" -> {
                once(spareHosts != null, arg, arg);
                spareHosts = value(args, i);
                HostListOption.parse(arg, spareHosts); // fail at the option, not later
            }
            default -> {
                return 0;
            }
        }
        return 2;
    }

    private static void once(boolean given, String arg, String earlier) throws UsageException {
        if (given) {
            throw new UsageException(arg + " given twice" + (earlier.equals(arg) ? "" : " (also as " + earlier + ")"));
        }
    }

    private static String value(String[] args, int i) throws UsageException {
        if (i + 1 >= args.length) {
            throw new UsageException(args[i] + " needs a value");
        }
        return args[i + 1];
    }

    /** @return whether the command line named hosts ({@code --hostfile} or {@code --host}) */
    public boolean hostsGiven() {
        return hostfile != null || hostList != null;
    }

    /**
     * @param env the environment (for SLURM), e.g. {@code System.getenv()}
     * @return the job's hosts, or empty when every rank runs on the launcher's host
     * @throws UsageException for a bad or unreadable hostfile, a bad list, a bad SLURM environment, or both a
     *                        hostfile and {@code --host}
     */
    public Optional<HostList> hosts(Map<String, String> env) throws UsageException {
        if (hostfile != null && hostList != null) {
            throw new UsageException(hostfileOption + " and " + hostListOption + " cannot both be given");
        }
        if (hostfile != null) {
            return Optional.of(HostFile.read(hostfile));
        }
        if (hostList != null) {
            return Optional.of(HostListOption.parse(hostListOption, hostList));
        }
        return SlurmAllocation.fromEnvironment(env);
    }

    /**
     * @param np  the number of ranks
     * @param env the environment (for SLURM)
     * @return where each rank runs, and the spare hosts
     * @throws UsageException as {@link #hosts} and {@link RankMapping#map}, or for mapping options with no hosts
     */
    public RankMapping map(int np, Map<String, String> env) throws UsageException {
        Optional<HostList> hosts = hosts(env);
        if (hosts.isEmpty()) {
            if (policy != null || ranksPerNode != 0 || spareHosts != null) {
                throw new UsageException((policy != null ? "--map-by" : ranksPerNode != 0 ? "--ranks-per-node" : "--spare-hosts")
                        + " needs hosts: --hostfile, --host or a SLURM allocation");
            }
            return RankMapping.local(np);
        }
        HostList spares = spareHosts == null ? HostList.of("--spare-hosts", List.of())
                : HostListOption.parse("--spare-hosts", spareHosts);
        return RankMapping.map(hosts.get(), np, policy == null ? MappingPolicy.SLOT : policy, ranksPerNode, spares);
    }
}
