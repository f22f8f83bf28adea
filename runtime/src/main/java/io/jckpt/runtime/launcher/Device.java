package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import java.util.Locale;

/** The MPJ Express device a job runs on. */
public enum Device {
    /** One JVM per rank, TCP between them (MPJ Express niodev). Supports recovery. */
    NIODEV("niodev"),
    /** All ranks as threads of one JVM, one class loader per rank (MPJ Express smpdev). */
    MULTICORE("multicore");

    private final String cliName;

    Device(String cliName) {
        this.cliName = cliName;
    }

    /** The name used on the command line. */
    public String cliName() {
        return cliName;
    }

    static Device parse(String name) throws UsageException {
        for (Device device : values()) {
            if (device.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                return device;
            }
        }
        throw new UsageException("unknown device '" + name + "' (use niodev or multicore)");
    }
}
