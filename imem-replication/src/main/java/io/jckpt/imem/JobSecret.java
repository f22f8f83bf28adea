package io.jckpt.imem;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The per-job secret that authenticates every connection of a job: the ranks' data channels and
 * the launcher's control connections. Both ends prove knowledge of it with an HMAC-SHA256 over fresh
 * nonces, so only the job's own processes can connect. The launcher creates one per job and hands it
 * to every rank as hex in an environment variable (never on a command line).
 */
public final class JobSecret {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] key;

    private JobSecret(byte[] key) {
        if (key.length < 16) {
            throw new IllegalArgumentException("job secret must have at least 16 bytes");
        }
        this.key = key.clone();
    }

    /** @return a new random 32-byte secret */
    public static JobSecret random() {
        byte[] k = new byte[32];
        RANDOM.nextBytes(k);
        return new JobSecret(k);
    }

    /**
     * @param key the secret's bytes (copied)
     * @return the secret
     */
    public static JobSecret of(byte[] key) {
        return new JobSecret(key);
    }

    /**
     * @param hex the secret in hex
     * @return the secret
     */
    public static JobSecret fromHex(String hex) {
        return new JobSecret(HexFormat.of().parseHex(hex));
    }

    /** @return the secret in hex, to hand to child processes */
    public String toHex() {
        return HexFormat.of().formatHex(key);
    }

    /**
     * @param n number of bytes
     * @return fresh random bytes (a nonce for one handshake)
     */
    public static byte[] nonce(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /**
     * @param parts what to authenticate (each length-prefixed, so that no two lists of parts collide)
     * @return HMAC-SHA256(secret, parts...)
     */
    public byte[] mac(byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            for (byte[] p : parts) {
                mac.update(ByteBuffer.allocate(4).putInt(p.length).array());
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static boolean equal(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    @Override
    public String toString() {
        return "JobSecret[hidden]";
    }
}
