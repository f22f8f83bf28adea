package io.jckpt.runtime.multicore;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * An output stream shared by the rank threads of one JVM that writes whole lines, each prefixed
 * with the writing thread's rank ("[rank r] "), so lines of different ranks never mix. The rank
 * is inherited by the threads a rank starts.
 */
final class LinePrefixingStream extends OutputStream {
    private static final InheritableThreadLocal<String> PREFIX = new InheritableThreadLocal<>();

    private final PrintStream target;
    private final ThreadLocal<ByteArrayOutputStream> pending = ThreadLocal.withInitial(ByteArrayOutputStream::new);

    LinePrefixingStream(PrintStream target) {
        this.target = target;
    }

    /** Marks the calling thread (and threads it starts later) as belonging to {@code rank}. */
    static void setRank(int rank) {
        PREFIX.set("[rank " + rank + "] ");
    }

    @Override
    public void write(int b) {
        ByteArrayOutputStream line = pending.get();
        if (b == '\n') {
            emit(line);
        } else {
            line.write(b);
        }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        ByteArrayOutputStream line = pending.get();
        int start = offset;
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] == '\n') {
                line.write(bytes, start, i - start);
                emit(line);
                start = i + 1;
            }
        }
        line.write(bytes, start, offset + length - start);
    }

    @Override
    public void flush() {
        target.flush();
    }

    private void emit(ByteArrayOutputStream line) {
        String prefix = PREFIX.get();
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        synchronized (target) {
            target.println(prefix == null ? "[host] " + text : prefix + text);
        }
    }
}
