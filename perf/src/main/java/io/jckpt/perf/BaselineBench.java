package io.jckpt.perf;

import io.jckpt.testkit.Baselines;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** The physical limits of this machine, in this run: the same sizes as the paper's tables. */
final class BaselineBench {
    record Result(int size, Samples memcpy, Samples crc, Samples durable, Samples read, Samples tcpThreads,
                  Samples tcpJvms) {
    }

    private BaselineBench() {
    }

    static Result run(int size, int iterations, Path diskDir, Baselines.ThreadPair threads,
                      Baselines.TwoJvmPair jvms) throws Exception {
        byte[] src = new byte[size];
        ThreadLocalRandom.current().nextBytes(src);
        ByteBuffer dst = Baselines.pretouched(size);
        ByteBuffer image = Baselines.pretouched(size);
        image.put(src).clear();
        Samples memcpy = new Samples();
        Samples crc = new Samples();
        Samples durable = new Samples();
        Samples read = new Samples();
        Samples tcpT = new Samples();
        Samples tcpJ = new Samples();
        long[] sink = new long[1];
        Path file = diskDir.resolve("read-" + size + ".bin");
        Files.write(file, src);
        int small = size <= 40_000 ? 50 : 1; // small sizes: more calls per sample, for the JIT and the timer
        int warmup = Math.max(2, iterations / 5);
        for (int i = -warmup; i < iterations; i++) {
            long c = 0;
            long k = 0;
            for (int j = 0; j < small; j++) {
                c += Baselines.copy(src, dst);
                k += Baselines.crc32c(image, sink);
            }
            long d = Baselines.durableWrite(diskDir, image, size, i + warmup);
            long r = Baselines.readFile(file, dst);
            long t1 = threads.transfer(size);
            long t2 = jvms.transfer(size);
            if (i >= 0) {
                memcpy.add(c / (double) small);
                crc.add(k / (double) small);
                durable.add(d);
                read.add(r);
                tcpT.add(t1);
                tcpJ.add(t2);
            }
        }
        Files.delete(file);
        if (sink[0] == 42) {
            System.out.print("");
        }
        return new Result(size, memcpy, crc, durable, read, tcpT, tcpJ);
    }

    static void report(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(List.of(Samples.size(r.size()), Integer.toString(r.memcpy().count()),
                    r.memcpy().timeCell() + " (" + Samples.gbps(r.size(), r.memcpy().median()) + ")",
                    r.crc().timeCell() + " (" + Samples.gbps(r.size(), r.crc().median()) + ")",
                    r.tcpJvms().timeCell() + " (" + Samples.gbps(r.size(), r.tcpJvms().median()) + ")",
                    r.tcpThreads().timeCell() + " (" + Samples.gbps(r.size(), r.tcpThreads().median()) + ")",
                    r.durable().timeCell() + " (" + Samples.gbps(r.size(), r.durable().median()) + ")",
                    r.read().timeCell()));
        }
        report.table(List.of("size", "n", "memcpy → pre-touched off-heap", "CRC32C", "raw loopback TCP, two JVMs (+1 B ack)",
                "raw loopback TCP, two threads", "raw durable write (write+force+rename+dir fsync)",
                "raw file read (page cache)"), rows);
    }
}
