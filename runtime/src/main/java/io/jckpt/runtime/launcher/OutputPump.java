package io.jckpt.runtime.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Forwards one stream of a rank process, line by line, to the job console. One named thread. */
final class OutputPump {
    private final Thread thread;
    private volatile String prefix;

    OutputPump(InputStream stream, String prefix, boolean stderr, JobConsole console, String name) {
        this.prefix = prefix;
        this.thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    console.rankLine(this.prefix, line, stderr);
                }
            } catch (IOException ignored) {
                // the process is gone and its pipe closed: nothing more to forward
            }
        }, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Lines from now on carry {@code newPrefix} (a standby became a rank). */
    void prefix(String newPrefix) {
        this.prefix = newPrefix;
    }

    /** Waits (bounded) until everything the process wrote has been forwarded. */
    void drain(long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
