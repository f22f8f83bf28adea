package io.jckpt.imem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Mutual authentication of a data-channel connection with the {@link JobSecret}: each side proves
 * knowledge of the secret by an HMAC over both sides' fresh nonces and both ranks, so neither a
 * stranger nor a replayed conversation is accepted. Split into steps so that a ring of ranks, each
 * connecting to its next and accepting from its previous, never waits in a cycle.
 * <pre>
 *   client: HELLO  = magic, purpose, clientRank, serverRank, clientNonce[16]
 *   server: PROOF  = serverNonce[16], HMAC("server", ...)[32]
 *   client: PROOF  = HMAC("client", ...)[32]
 *   server: OK     = 1 byte
 * </pre>
 */
final class ChannelHandshake {
    static final int MAGIC = 0x4A434853; // 'JCHS'
    static final int PURPOSE_RING = 1;
    static final int PURPOSE_TRANSFER = 2;
    private static final int NONCE = 16;
    private static final int MAC = 32;
    private static final int HELLO = 16 + NONCE;

    private ChannelHandshake() {
    }

    /** The client side of one connection. */
    static final class Client {
        private final SocketChannel ch;
        private final JobSecret secret;
        private final int purpose;
        private final int me;
        private final int peer;
        private final WaitFence fence;
        private final byte[] nonce = JobSecret.nonce(NONCE);
        private byte[] serverNonce;

        Client(SocketChannel ch, JobSecret secret, int purpose, int me, int peer, WaitFence fence) {
            this.ch = ch;
            this.fence = fence;
            this.secret = secret;
            this.purpose = purpose;
            this.me = me;
            this.peer = peer;
        }

        void sendHello(long deadline) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(HELLO).putInt(MAGIC).putInt(purpose).putInt(me).putInt(peer).put(nonce);
            ChannelIo.writeFully(ch, b.flip(), deadline, fence, "rank " + me + " hello to rank " + peer);
        }

        void verifyServerAndProve(long deadline) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(NONCE + MAC);
            ChannelIo.readFully(ch, b, deadline, fence, "rank " + me + " awaiting rank " + peer + "'s proof (wrong job secret?)");
            serverNonce = new byte[NONCE];
            byte[] mac = new byte[MAC];
            b.flip().get(serverNonce).get(mac);
            if (!JobSecret.equal(mac, transcript(secret, "server", purpose, me, peer, nonce, serverNonce))) {
                throw new ReplicationException("rank " + me + ": the peer at rank " + peer
                        + "'s address failed authentication (not this job's process)");
            }
            ChannelIo.writeFully(ch, ByteBuffer.wrap(transcript(secret, "client", purpose, me, peer, nonce, serverNonce)),
                    deadline, fence, "rank " + me + " proof to rank " + peer);
        }

        void awaitOk(long deadline) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(1);
            ChannelIo.readFully(ch, b, deadline, fence, "rank " + me + " awaiting rank " + peer + "'s acceptance (wrong job secret?)");
            if (b.get(0) != 1) {
                throw new ReplicationException("rank " + peer + " rejected rank " + me + "'s connection");
            }
        }
    }

    /** The server side of one connection. */
    static final class Server {
        private final SocketChannel ch;
        private final JobSecret secret;
        private final int purpose;
        private final int me;
        private final byte[] nonce = JobSecret.nonce(NONCE);
        private byte[] clientNonce;
        private int peer = -1;
        private final WaitFence fence;

        Server(SocketChannel ch, JobSecret secret, int purpose, int me, WaitFence fence) {
            this.ch = ch;
            this.fence = fence;
            this.secret = secret;
            this.purpose = purpose;
            this.me = me;
        }

        /** @return the client's claimed rank (authenticated only after {@link #verifyClient}) */
        int peer() {
            return peer;
        }

        /**
         * Reads the hello and sends the server proof.
         *
         * @param expectedPeer the rank expected, or -1 for any
         */
        void answerHello(long deadline, int expectedPeer) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(HELLO);
            ChannelIo.readFully(ch, b, deadline, fence, "rank " + me + " awaiting a hello");
            b.flip();
            int magic = b.getInt();
            int p = b.getInt();
            int client = b.getInt();
            int server = b.getInt();
            if (magic != MAGIC || p != purpose || server != me || (expectedPeer >= 0 && client != expectedPeer)) {
                throw new ReplicationException("rank " + me + ": unexpected connection (claims rank " + client
                        + ", for rank " + server + ", purpose " + p + ")");
            }
            peer = client;
            clientNonce = new byte[NONCE];
            b.get(clientNonce);
            ByteBuffer out = ByteBuffer.allocate(NONCE + MAC).put(nonce)
                    .put(transcript(secret, "server", purpose, client, me, clientNonce, nonce));
            ChannelIo.writeFully(ch, out.flip(), deadline, fence, "rank " + me + " proof to rank " + client);
        }

        void verifyClient(long deadline) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(MAC);
            ChannelIo.readFully(ch, b, deadline, fence, "rank " + me + " awaiting rank " + peer + "'s proof (wrong job secret?)");
            if (!JobSecret.equal(b.array(), transcript(secret, "client", purpose, peer, me, clientNonce, nonce))) {
                throw new ReplicationException("rank " + me + ": connection claiming rank " + peer
                        + " failed authentication (not this job's process)");
            }
            ChannelIo.writeFully(ch, ByteBuffer.wrap(new byte[] {1}), deadline, fence, "rank " + me + " ok to rank " + peer);
        }
    }

    private static byte[] transcript(JobSecret secret, String role, int purpose, int client, int server,
                                     byte[] clientNonce, byte[] serverNonce) {
        byte[] ids = ByteBuffer.allocate(12).putInt(purpose).putInt(client).putInt(server).array();
        return secret.mac(role.getBytes(java.nio.charset.StandardCharsets.US_ASCII), ids, clientNonce, serverNonce);
    }
}
