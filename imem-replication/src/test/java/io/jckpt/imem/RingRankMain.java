package io.jckpt.imem;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Child process for the kill -9 ring test: one rank with its own store, endpoint and agent. Prints
 * "ADDR port", reads "NEXT port" on stdin, joins the ring, then checkpoints rounds 1, 2, ... printing
 * "ROUND r" after each here(). Args: store dir, rank, n, m, secret hex, image size[, slot capacity].
 */
public final class RingRankMain {
    private RingRankMain() {
    }

    /**
     * @param args see the class comment
     * @throws Exception on failure (the test kills this process anyway)
     */
    public static void main(String[] args) throws Exception {
        int rank = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int m = Integer.parseInt(args[3]);
        JobSecret secret = JobSecret.fromHex(args[4]);
        int size = Integer.parseInt(args[5]);
        long capacity = args.length > 6 ? Long.parseLong(args[6]) : size + 4096;
        try (ReplicaStore store = ReplicaStore.open(new ReplicaStoreConfig(Path.of(args[0]), rank, n, m, 2, capacity, 1L << 31));
             DataEndpoint ep = DataEndpoint.bindLoopback(rank, secret)) {
            System.out.println("ADDR " + ep.address().getPort());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            int nextPort = Integer.parseInt(line.substring("NEXT ".length()));
            RingLinks links = ep.joinRing(n, new InetSocketAddress(InetAddress.getLoopbackAddress(), nextPort), Duration.ofSeconds(20));
            try (ReplicationAgent agent = ReplicationAgent.start(store, links, Duration.ofSeconds(10), false, -1)) {
                for (long round = 1; round < 1_000_000; round++) {
                    byte[] img = RingReplicationTest.image(rank, round, size);
                    ReplicaWrite w = agent.beginRound(round, img.length, Duration.ofSeconds(30));
                    w.image().put(img);
                    agent.commitRound(w);
                    System.out.println("ROUND " + round);
                    System.out.flush();
                    LockSupport.parkNanos(2_000_000);
                }
            }
        }
    }
}
