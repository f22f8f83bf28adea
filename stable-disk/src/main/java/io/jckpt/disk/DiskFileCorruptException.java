package io.jckpt.disk;

import java.nio.file.Path;

/**
 * A checkpoint file or a commit marker failed verification; {@link #damage()} says how.
 */
public final class DiskFileCorruptException extends StableDiskException {
    private static final long serialVersionUID = 1L;
    private final DiskFileDamage damage;
    private final String detail;

    /**
     * @param damage the kind of damage
     * @param path   the damaged file
     * @param detail what exactly was found
     */
    public DiskFileCorruptException(final DiskFileDamage damage, final Path path, final String detail) {
        super(path, damage + ": " + detail, null);
        this.damage = damage;
        this.detail = detail;
    }

    /**
     * @return the kind of damage
     */
    public DiskFileDamage damage() {
        return damage;
    }

    /**
     * @return what exactly was found, without the path
     */
    public String detail() {
        return detail;
    }
}
