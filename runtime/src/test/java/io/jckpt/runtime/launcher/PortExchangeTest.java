package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * MPJ's port exchange as the launcher runs it, over real loopback sockets: a rank that dies in the
 * middle of its hello (a second failure while a recovery's world forms) does not fail the exchange;
 * its replacement joins, and every rank gets the peer list. The campaign found the job failing with
 * "MPJ port exchange failed: null" there.
 */
class PortExchangeTest {

    private static String hello(int port, int rank) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(20_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeUTF("Sending Info");
            out.writeInt(20_000 + rank);
            out.writeInt(30_000 + rank);
            out.writeInt(rank);
            out.flush();
            return new DataInputStream(socket.getInputStream()).readUTF();
        }
    }

    @Test
    void aRankDyingInItsHelloDoesNotFailTheExchange() throws Exception {
        try (PortExchange exchange = new PortExchange(InetAddress.getLoopbackAddress(), List.of("127.0.0.1", "127.0.0.1"),
                30_000, "test-port-exchange")) {
            CompletableFuture<String> rank0 = CompletableFuture.supplyAsync(() -> {
                try {
                    return hello(exchange.port(), 0);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            // rank 1 is killed half-way through its hello
            try (Socket dying = new Socket(InetAddress.getLoopbackAddress(), exchange.port())) {
                DataOutputStream out = new DataOutputStream(dying.getOutputStream());
                out.writeUTF("Sending Info");
                out.writeInt(20_001);
                out.flush();
            }
            // its replacement joins
            String answer1 = hello(exchange.port(), 1);
            String answer0 = rank0.get(20, TimeUnit.SECONDS);
            assertEquals(answer0, answer1);
            assertTrue(answer0.contains("127.0.0.1@30000@20000@0@0") && answer0.contains("127.0.0.1@30001@20001@1@0"),
                    answer0);
            assertNull(exchange.failure());
            assertTrue(exchange.completedNanos() != 0);
        }
    }
}
