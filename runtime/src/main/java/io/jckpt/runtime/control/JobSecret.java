package io.jckpt.runtime.control;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The per-job secret shared by the launcher and the job's own processes, used to authenticate
 * every connection to the job's endpoints (HMAC-SHA256 over a server nonce).
 */
public final class JobSecret {
    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private JobSecret(byte[] key) {
        this.key = key.clone();
    }

    /** A fresh random secret for a new job. */
    public static JobSecret generate() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return new JobSecret(key);
    }

    /** Parses the hex form produced by {@link #toHex()}. */
    public static JobSecret fromHex(String hex) {
        if (hex == null || hex.length() != 64) {
            throw new IllegalArgumentException("job secret must be 64 hex characters");
        }
        return new JobSecret(HexFormat.of().parseHex(hex));
    }

    /** The hex form, passed to ranks through the environment (never on a command line). */
    public String toHex() {
        return HexFormat.of().formatHex(key);
    }

    /** A fresh random nonce for one handshake. */
    public static byte[] nonce() {
        byte[] nonce = new byte[ControlProtocol.NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** HMAC-SHA256(secret, nonce || rank). */
    public byte[] mac(byte[] nonce, int rank) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            mac.update(nonce);
            mac.update(ByteBuffer.allocate(4).putInt(rank).array());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    /** Constant-time check of a peer's answer to {@code nonce}. */
    public boolean verify(byte[] nonce, int rank, byte[] answer) {
        return MessageDigest.isEqual(mac(nonce, rank), answer);
    }
}
