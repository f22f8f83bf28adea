package io.jckpt.runtime.launcher;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.control.RecoverFrame;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The launcher's control plane at scale: the real {@link ControlServer} and {@link RankChannels} (with
 * its {@link ExchangeCoordinator}) of a job of n ranks, against n simulated ranks speaking the real
 * protocol in a second JVM ({@code io.jckpt.perf.SimulatedRanks}, one selector thread). Measures, per n:
 * open (connect, authenticate, RANK_READY, the open exchange: start → every rank has its result), one
 * checkpoint round's control traffic (RANK_ROUND and the size agreement), and a recovery's coordination
 * (a rank's connection ends → the launcher starts the next world as {@link Job} does: new epoch,
 * RECOVER to every survivor → every survivor has its RECOVER, and → every rank has the new world's
 * open result), with the bytes through the launcher, its threads, its resident memory and its CPU time
 * per phase (this JVM's: the ranks run in the other), and the RECOVER fan-out (detection → the last
 * RECOVER handed to its socket: the launcher's own part of the recovery).
 *
 * <p>In this package (perf's split package) to drive the launcher's package-private parts. The
 * simulated ranks run in their own JVM: one process holds at most {@code ulimit -n} sockets, and n
 * ranks need n on each side. Run it with {@code bin/control-bench} (which raises {@code ulimit -n}).
 *
 * <p>Arguments: {@code [--ranks 64,256,1024,4096,10240] [--runs 3] [--open-bytes 160] [--window 64] [--out FILE]}.
 */
public final class ControlPlaneBench {
    private static final long STEP_TIMEOUT_SECONDS = 150;

    /** One measured run of one n. */
    record Run(int n, int run, int launcherThreads, int jvmThreads, double connectMs, double openMs,
               double roundMs, long roundOut, long roundIn, double recoverMs, double recoverOpenMs, long openOut,
               long recoverOut, long rssKb, double load, double openCpuMs, double roundCpuMs, double recoverCpuMs,
               double fanOutMs, String failure) {
    }

    private final List<String> javaCommand;
    private final int openBytes;
    private final int window;

    private ControlPlaneBench(List<String> javaCommand, int openBytes, int window) {
        this.javaCommand = javaCommand;
        this.openBytes = openBytes;
        this.window = window;
    }

    /** The launcher's side of one job: its channels, and each failure as it is detected. */
    private static final class LauncherSide implements ControlListener {
        final RankChannels channels;
        final BlockingQueue<long[]> disconnects = new LinkedBlockingQueue<>();

        LauncherSide(RankChannels channels) {
            this.channels = channels;
        }

        @Override
        public void connected(int rank, ControlChannel connection) {
            channels.connected(rank, connection);
        }

        @Override
        public void frame(int rank, byte type, byte[] payload) {
            channels.frame(rank, type, payload);
        }

        @Override
        public void disconnected(int rank, ControlChannel connection) {
            channels.disconnected(rank, connection);
            disconnects.add(new long[] {rank, System.nanoTime()});
        }
    }

    private Run measure(int n, int run) throws Exception {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        JobConsole console = new JobConsole(nowhere, nowhere, true, null);
        StandbyPool standbys = new StandbyPool((id, host) -> {
            throw new IOException("no standbys in this bench");
        }, console, List.of(), host -> true);
        LauncherSide side = new LauncherSide(new RankChannels(n, standbys, console, event -> { }, ""));
        JobSecret secret = JobSecret.random();
        String jobId = "control-bench-" + n + "-" + run;
        Process sim = new ProcessBuilder(javaCommand).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Writer toSim = new java.io.OutputStreamWriter(sim.getOutputStream(), StandardCharsets.UTF_8);
        BufferedReader fromSim = new BufferedReader(new InputStreamReader(sim.getInputStream(), StandardCharsets.UTF_8));
        BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        Thread pump = new Thread(() -> {
            try {
                for (String line = fromSim.readLine(); line != null; line = fromSim.readLine()) {
                    answers.add(line);
                }
            } catch (IOException e) {
                // the simulation ended
            }
            answers.add("ended");
        }, "control-bench-answers");
        pump.setDaemon(true);
        pump.start();
        String failure = null;
        int launcherThreads = 0;
        int jvmThreads = 0;
        double openMs = -1;
        double connectMs = -1;
        double roundMs = -1;
        double recoverMs = -1;
        double fanOutMs = -1;
        double recoverOpenMs = -1;
        long roundOut = -1;
        long roundIn = -1;
        long openOut = -1;
        long recoverOut = -1;
        long rss = -1;
        double openCpuMs = -1;
        double roundCpuMs = -1;
        double recoverCpuMs = -1;
        try (ControlServer server = new ControlServer(InetAddress.getLoopbackAddress(), jobId, secret, n, side)) {
            long cpu = cpuNanos();
            long[] open = step(toSim, answers, "open " + server.port() + " " + jobId + " " + secret.toHex() + " " + n
                    + " " + openBytes + " " + run + " " + window);
            openMs = (open[1] - open[0]) / 1e6;
            connectMs = (open[4] - open[0]) / 1e6;
            openCpuMs = (cpuNanos() - cpu) / 1e6;
            openOut = open[2];
            launcherThreads = launcherThreads();
            jvmThreads = ManagementFactory.getThreadMXBean().getThreadCount();
            rss = rssKb();
            cpu = cpuNanos();
            long[] round = step(toSim, answers, "round 1");
            roundCpuMs = (cpuNanos() - cpu) / 1e6;
            roundMs = (round[1] - round[0]) / 1e6;
            roundOut = round[2];
            roundIn = round[3];
            int failed = n / 2;
            cpu = cpuNanos();
            step(toSim, answers, "kill " + failed);
            long[] lost = side.disconnects.poll(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (lost == null || lost[0] != failed) {
                throw new IOException("the launcher did not see rank " + failed + "'s connection end");
            }
            long detected = lost[1];
            long[] recovered = recover(side.channels, toSim, answers, failed, detected);
            recoverMs = (recovered[4] - detected) / 1e6;
            fanOutMs = (recovered[5] - detected) / 1e6;
            recoverOpenMs = (recovered[1] - detected) / 1e6;
            recoverOut = recovered[2];
            recoverCpuMs = (cpuNanos() - cpu) / 1e6;
            rss = Math.max(rss, rssKb());
            step(toSim, answers, "close");
        } catch (IOException | RuntimeException e) {
            failure = e.getMessage();
        } finally {
            toSim.close();
            if (!sim.waitFor(30, TimeUnit.SECONDS)) {
                sim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        return new Run(n, run, launcherThreads, jvmThreads, connectMs, openMs, roundMs, roundOut, roundIn, recoverMs,
                recoverOpenMs, openOut, recoverOut, rss, load(), openCpuMs, roundCpuMs, recoverCpuMs, fanOutMs, failure);
    }

    /**
     * What {@link Job} does at a recovery on the control plane: the new epoch, the replacement, RECOVER to
     * every survivor. Returns the simulation's answer and, last, when the last RECOVER was handed over.
     */
    private static long[] recover(RankChannels channels, Writer toSim, BlockingQueue<String> answers, int failed,
                                  long detected) throws IOException, InterruptedException {
        channels.exchanges().startEpoch(1);
        RecoverFrame frame = new RecoverFrame(1, "#Number of Processes;0;#Server Name;127.0.0.1;#Server Port;1",
                new int[] {failed}, 0);
        send(toSim, "replace " + failed); // replacements first, as the launcher does
        for (Map.Entry<Integer, ControlChannel> entry : new ArrayList<>(channels.controls().entrySet())) {
            if (entry.getKey() != failed) {
                try {
                    entry.getValue().send(ControlProtocol.RECOVER, frame.agedAt(detected, System.nanoTime()).encode());
                } catch (IOException e) {
                    // as in Job: a rank that died meanwhile starts another recovery
                }
            }
        }
        long sent = System.nanoTime();
        long[] done = await(answers, "recover");
        long[] withSent = java.util.Arrays.copyOf(done, done.length + 1);
        withSent[done.length] = sent;
        return withSent;
    }

    private static long[] step(Writer toSim, BlockingQueue<String> answers, String command)
            throws IOException, InterruptedException {
        send(toSim, command);
        return await(answers, command.split(" ")[0]);
    }

    private static void send(Writer toSim, String command) throws IOException {
        toSim.write(command + "\n");
        toSim.flush();
    }

    private static long[] await(BlockingQueue<String> answers, String phase) throws IOException, InterruptedException {
        String line = answers.poll(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (line == null || !line.startsWith("done " + phase + " ")) {
            throw new IOException(phase + ": " + line);
        }
        String[] w = line.split(" ");
        long[] values = new long[w.length - 2];
        for (int i = 2; i < w.length; i++) {
            values[i - 2] = Long.parseLong(w[i]);
        }
        return values;
    }

    /** Threads of the launcher's control plane: its acceptor, readers or event loop. */
    private static int launcherThreads() {
        int count = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jckpt-control")) {
                count++;
            }
        }
        return count;
    }

    private static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }

    /** CPU time of this JVM, the launcher's side (the simulated ranks run in their own). */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = List.of(64, 256, 1024, 4096, 10240);
        int runs = 3;
        int openBytes = 160;
        int window = 64;
        Path outFile = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ranks" -> sizes = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--open-bytes" -> openBytes = Integer.parseInt(args[++i]);
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--out" -> outFile = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--ranks 64,256 --runs 3 --open-bytes 160 --window 64 --out FILE)");
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-Xmx1g", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                "io.jckpt.perf.SimulatedRanks");
        ControlPlaneBench bench = new ControlPlaneBench(command, openBytes, window);
        List<Run> all = new ArrayList<>();
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "java %s, %d cores, open contribution %d bytes, connect window %d%n%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), openBytes, window));
        md.append("| n | run | launcher threads | JVM threads | connect ms | open ms | round ms | round bytes out/in"
                + " | recover ms (RECOVER at every survivor) | recover + open result ms | open bytes out"
                + " | recovery bytes out | RSS MiB | load | launcher CPU ms open / round / recovery"
                + " | RECOVER fan-out ms |\n" + "|---".repeat(16) + "|\n");
        for (int n : sizes) {
            for (int r = 0; r < runs; r++) {
                Run run = bench.measure(n, r);
                all.add(run);
                String row = String.format(Locale.ROOT, "| %d | %d | %d | %d | %.1f | %.1f | %.1f | %d / %d | %.1f | %.1f"
                                + " | %d | %d | %.0f | %.2f | %.0f / %.0f / %.0f | %.1f |%s", n, r, run.launcherThreads(),
                        run.jvmThreads(), run.connectMs(), run.openMs(), run.roundMs(), run.roundOut(), run.roundIn(),
                        run.recoverMs(), run.recoverOpenMs(), run.openOut(), run.recoverOut(), run.rssKb() / 1024.0,
                        run.load(), run.openCpuMs(), run.roundCpuMs(), run.recoverCpuMs(), run.fanOutMs(),
                        run.failure() == null ? "" : " FAILED: " + run.failure());
                System.out.println(row);
                md.append(row).append('\n');
                System.gc();
            }
        }
        md.append('\n').append(summary(all));
        System.out.println(summary(all));
        if (outFile != null) {
            Files.writeString(outFile, md.toString());
        }
        System.exit(0);
    }

    /** Medians per n, and the exponent fitted between the smallest n at least 1,024 and the largest. */
    private static String summary(List<Run> all) {
        Map<Integer, List<Run>> byN = new java.util.TreeMap<>();
        for (Run r : all) {
            if (r.failure() == null) {
                byN.computeIfAbsent(r.n(), k -> new ArrayList<>()).add(r);
            }
        }
        StringBuilder sb = new StringBuilder("| n | connect ms | open ms | round ms | recover ms | recover + open ms"
                + " | round bytes out per rank | open bytes out per rank | launcher CPU ms round / recovery"
                + " | RECOVER fan-out ms |\n" + "|---".repeat(10) + "|\n");
        Map<Integer, double[]> medians = new HashMap<>();
        for (Map.Entry<Integer, List<Run>> e : byN.entrySet()) {
            List<Run> runs = e.getValue();
            double[] m = {median(runs, Run::connectMs), median(runs, Run::openMs), median(runs, Run::roundMs),
                    median(runs, Run::recoverMs), median(runs, Run::recoverOpenMs), median(runs, Run::recoverCpuMs),
                    median(runs, Run::fanOutMs)};
            medians.put(e.getKey(), m);
            sb.append(String.format(Locale.ROOT, "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f / %.0f"
                    + " | %.1f |%n", e.getKey(), m[0], m[1], m[2], m[3], m[4],
                    median(runs, r -> (double) r.roundOut()) / e.getKey(),
                    median(runs, r -> (double) r.openOut()) / e.getKey(), median(runs, Run::roundCpuMs),
                    median(runs, Run::recoverCpuMs), m[6]));
        }
        Integer low = byN.keySet().stream().filter(n -> n >= 1024).findFirst().orElse(null);
        Integer high = byN.isEmpty() ? null : ((java.util.TreeMap<Integer, List<Run>>) byN).lastKey();
        if (low != null && high > low) {
            double ln = Math.log((double) high / low);
            String[] names = {"connect", "open", "round", "recover", "recover + open", "launcher CPU of the recovery",
                    "RECOVER fan-out"};
            sb.append(String.format(Locale.ROOT, "%nfitted exponent %d → %d:", low, high));
            for (int i = 0; i < names.length; i++) {
                sb.append(String.format(Locale.ROOT, " %s %.2f;", names[i],
                        Math.log(medians.get(high)[i] / medians.get(low)[i]) / ln));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
        double[] v = runs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
