package io.jckpt.testkit.hosts;


/**
 * The child JVM of {@code TestHostsTest}'s SIGKILL case: starts two test hosts, prints {@code run NAME
 * INIT1 INIT2} and waits to be killed (bounded: ten minutes, then it closes its hosts).
 */
public final class HostsUntilKilled {
    private HostsUntilKilled() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        try (TestHosts hosts = TestHosts.builder().hosts(2).enforceAddresses(true).start()) {
            System.out.println("run " + hosts.name() + " " + hosts.host(0).initPid() + " " + hosts.host(1).initPid());
            System.out.flush();
            Thread.sleep(600_000);
        }
    }
}
