package io.jckpt.runtime.rank;

import io.jckpt.imem.JobSecret;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RingOrder;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The environment variables through which the launcher tells a rank process who it is. Names in
 * one place; the secret travels here (readable only by the same user), never on a command line.
 */
public final class RankEnvironment {
    public static final String RANK = RankContext.ENV_RANK;
    public static final String SIZE = RankContext.ENV_SIZE;
    public static final String JOB_ID = RankContext.ENV_JOB_ID;
    public static final String SECRET = "JCKPT_SECRET";
    /** The job's key in hex: checkpoints are authenticated with a key derived from it (never logged). */
    public static final String JOB_KEY = RankContext.ENV_JOB_KEY;
    public static final String CONTROL = "JCKPT_CONTROL";
    public static final String EPOCH = RankContext.ENV_EPOCH;
    public static final String NEW_RANK = RankContext.ENV_NEW_RANK;
    public static final String RECOVERY = RankContext.ENV_RECOVERY;
    /** The replication ring's order ({@link RingOrder#text()}; unset: the identity, rank order). */
    public static final String RING_ORDER = RankContext.ENV_RING_ORDER;
    public static final String DEVICE = "JCKPT_DEVICE";
    /**
     * The address of the rank's host as the other hosts reach it (the launcher's mapping); the rank's
     * replication endpoint binds it. Unset: 127.0.0.1 (every rank on the launcher's host).
     */
    public static final String HOST_ADDRESS = "JCKPT_HOST_ADDRESS";
    public static final String MPJ_CONF = "JCKPT_MPJ_CONF";
    public static final String MPJ_CLASSPATH = "JCKPT_MPJ_CLASSPATH";
    public static final String APP_CLASSPATH = "JCKPT_APP_CLASSPATH";
    public static final String LIB_CLASSPATH = "JCKPT_LIB_CLASSPATH";
    /** Heartbeat period in milliseconds (0 or unset: no heartbeats). */
    public static final String HEARTBEAT_MILLIS = "JCKPT_HEARTBEAT_MILLIS";
    /**
     * How long a rank may hear nothing from the launcher before it halts itself, in milliseconds (set
     * for ranks on other hosts: the heartbeat timeout; 0 or unset: the rank halts only when its control
     * connection ends). The launcher answers every heartbeat, so a live launcher is heard at least once
     * per heartbeat period.
     */
    public static final String LAUNCHER_TIMEOUT_MILLIS = "JCKPT_LAUNCHER_TIMEOUT_MILLIS";
    /** Set (to the standby's id) in a warm standby JVM, which has no rank until one is assigned. */
    public static final String STANDBY = "JCKPT_STANDBY";
    /** "fail" or "respawn": what the launcher does when a rank fails. */
    public static final String ON_FAILURE = "JCKPT_ON_FAILURE";
    /**
     * In a re-spawned rank: how long before the launcher started it the failure was detected (µs): the
     * rank counts its restart from the detection, not from its own start.
     */
    public static final String FAILURE_AGE_MICROS = "JCKPT_FAILURE_AGE_MICROS";

    private final Map<String, String> env;

    public RankEnvironment(Map<String, String> env) {
        this.env = env;
    }

    /** This process's environment. */
    public static RankEnvironment current() {
        return new RankEnvironment(System.getenv());
    }

    public String require(String name) {
        String value = env.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("environment variable " + name
                    + " is not set: rank processes are started by bin/ckpt-run");
        }
        return value;
    }

    public int requireInt(String name) {
        String value = require(name);
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable " + name + "=" + value + " is not a number");
        }
    }

    /**
     * @return the failure's age the launcher gave a re-spawned rank ({@link #FAILURE_AGE_MICROS}, µs); 0 when
     *     absent (the restart then counts from the JVM's start)
     * @throws IllegalStateException when set to anything but a whole number &gt;= 0
     */
    public long failureAgeMicros() {
        return optionalLong(FAILURE_AGE_MICROS);
    }

    /** @return the heartbeat period the launcher set ({@link #HEARTBEAT_MILLIS}, ms), 0 when unset (none) */
    public long heartbeatMillis() {
        return optionalLong(HEARTBEAT_MILLIS);
    }

    /** @return how long the rank waits to hear the launcher ({@link #LAUNCHER_TIMEOUT_MILLIS}, ms), 0 when unset */
    public long launcherTimeoutMillis() {
        return optionalLong(LAUNCHER_TIMEOUT_MILLIS);
    }

    /** An optional whole number &gt;= 0: 0 when unset or empty, a clear error when anything else. */
    private long optionalLong(String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            long v = Long.parseLong(value.trim());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException("environment variable " + name + "=" + value
                + " is not a whole number >= 0 (rank processes are started by bin/ckpt-run)");
    }

    /** The standby id of a warm standby JVM, or -1 in a rank JVM. */
    public int standbyId() {
        String value = env.get(STANDBY);
        return value == null || value.isEmpty() ? -1 : requireInt(STANDBY);
    }

    public int rank() {
        return requireInt(RANK);
    }

    public int size() {
        return requireInt(SIZE);
    }

    public String jobId() {
        return require(JOB_ID);
    }

    /** @return the replication ring the launcher set, or null for the identity (unset) */
    public RingOrder ringOrder() {
        String value = env.get(RING_ORDER);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return RingOrder.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + RING_ORDER + "=" + value + " is not a ring order: "
                    + e.getMessage(), e);
        }
    }

    public JobSecret secret() {
        return JobSecret.fromHex(require(SECRET));
    }

    /**
     * @return the job's key the launcher gave ({@link #JOB_KEY})
     * @throws IllegalStateException when it is missing or no key
     */
    public byte[] jobKey() {
        try {
            return io.jckpt.image.JobKeyFile.parse(require(JOB_KEY), "environment variable " + JOB_KEY);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage() + " (rank processes are started by bin/ckpt-run)", e);
        }
    }

    /**
     * @return the address of this JVM's host as the other hosts reach it ({@link #HOST_ADDRESS}), which
     *     its data endpoints bind; 127.0.0.1 when unset (every rank on the launcher's host)
     */
    public String hostAddress() {
        String host = env.get(HOST_ADDRESS);
        return host == null || host.isEmpty() ? "127.0.0.1" : host;
    }

    public String controlHost() {
        String control = require(CONTROL);
        return control.substring(0, control.lastIndexOf(':'));
    }

    public int controlPort() {
        String control = require(CONTROL);
        return Integer.parseInt(control.substring(control.lastIndexOf(':') + 1));
    }

    public List<String> classPath(String name) {
        List<String> entries = new ArrayList<>();
        String value = env.get(name);
        if (value != null) {
            for (String entry : value.split(File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    entries.add(entry);
                }
            }
        }
        return entries;
    }
}
