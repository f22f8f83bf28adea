package io.jckpt.image;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key a job's checkpoint images are authenticated with, derived from the job's key (32 random
 * bytes the launcher or a key file holds, {@code docs/design.md}): an HMAC-SHA256 key of its own
 * (HKDF-style, one HMAC block per purpose, so the job key is never used directly) and a key id, a
 * 32-bit fingerprint written into every image's header so that an image of another job is refused by
 * name before its MAC is computed. The id is no secret; the key never leaves this object and is never
 * printed.
 */
public final class ImageKey {
    /** Bytes of a job key made by {@link #newJobKey()}. */
    public static final int JOB_KEY_LENGTH = 32;
    /** The fewest bytes a job key may have. */
    public static final int JOB_KEY_MIN_LENGTH = 16;
    static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** A derivation label (domain separation), not the image format's version: the format that brought the MAC. */
    private static final byte[] MAC_PURPOSE = "jckpt checkpoint image MAC, format 2".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID_PURPOSE = "jckpt job key id".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec macKey;
    private final int id;

    private ImageKey(byte[] jobKey) {
        if (jobKey == null || jobKey.length < JOB_KEY_MIN_LENGTH) {
            throw new IllegalArgumentException("a job key needs at least " + JOB_KEY_MIN_LENGTH + " bytes, got "
                    + (jobKey == null ? "none" : jobKey.length));
        }
        byte[] derived = hmac(jobKey, MAC_PURPOSE);
        this.macKey = new SecretKeySpec(derived, ALGORITHM);
        java.util.Arrays.fill(derived, (byte) 0);
        byte[] idBytes = hmac(jobKey, ID_PURPOSE);
        this.id = (idBytes[0] & 0xff) << 24 | (idBytes[1] & 0xff) << 16 | (idBytes[2] & 0xff) << 8 | idBytes[3] & 0xff;
    }

    /**
     * @param jobKey the job's key (at least {@value #JOB_KEY_MIN_LENGTH} bytes; not kept)
     * @return the image key derived from it
     * @throws IllegalArgumentException when the job key is too short
     */
    public static ImageKey derive(byte[] jobKey) {
        return new ImageKey(jobKey);
    }

    /** @return a new random job key of {@value #JOB_KEY_LENGTH} bytes */
    public static byte[] newJobKey() {
        byte[] k = new byte[JOB_KEY_LENGTH];
        RANDOM.nextBytes(k);
        return k;
    }

    /** @return the key id written into every image's header (no secret) */
    public int id() {
        return id;
    }

    /** @return the key id as 8 hex digits, as errors and logs name it */
    public String idHex() {
        return hex(id);
    }

    /** @return a new MAC computation with this key (reusable, one thread at a time) */
    public ImageMac newMac() {
        return new ImageMac(this);
    }

    SecretKeySpec macKey() {
        return macKey;
    }

    static String hex(int id) {
        return HexFormat.of().toHexDigits(id);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "ImageKey[id " + idHex() + "]";
    }
}
