/**
 * How registered data is captured and restored: {@link io.jckpt.data.DataAdapter}s per type (primitive
 * arrays, ByteBuffer, Chronicle Bytes, Kryo for other objects), chosen by
 * {@link io.jckpt.data.DataAdapters}, held per tag in a {@link io.jckpt.data.TagRegistry}; bulk copies
 * through {@link io.jckpt.data.MemoryCopy}.
 */
package io.jckpt.data;
