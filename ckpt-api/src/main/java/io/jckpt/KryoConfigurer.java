package io.jckpt;

import com.esotericsoftware.kryo.Kryo;

/**
 * Registers the application's classes (and serializers) with the Kryo instance that checkpoints
 * objects. Called once per {@link Checkpointer}, on the thread that opens it. Registration order must
 * be the same on every rank and in every incarnation of a rank, since Kryo writes registration ids.
 */
@FunctionalInterface
public interface KryoConfigurer {
    /** A configurer that registers nothing. */
    KryoConfigurer NONE = kryo -> { };

    /** @param kryo the instance to configure */
    void configure(Kryo kryo);
}
