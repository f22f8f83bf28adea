package io.jckpt.data;

/**
 * What an image says about one tag: its type, element count and byte length, and where its payload is.
 * Produced by {@link io.jckpt.image.ImageReader}; given to {@link DataAdapter#restore}.
 *
 * @param tag           the tag
 * @param rank          the rank whose data this is
 * @param typeCode      the stored type code byte
 * @param elementCount  number of elements (bytes for ByteBuffer/Bytes, 1 for a Kryo object)
 * @param byteLength    payload bytes
 * @param payloadOffset absolute offset of the payload in the store holding the image
 */
public record SavedEntry(String tag, int rank, byte typeCode, long elementCount, long byteLength, long payloadOffset) {

    /** @return the built-in type, or null for an application type */
    public TypeCode builtInType() {
        return TypeCode.builtIn(typeCode);
    }

    /** @return e.g. {@code "double[1000] (8000 bytes)"} */
    public String describe() {
        TypeCode t = builtInType();
        String name = t == null ? "type #" + typeCode : t.typeName();
        if (t != null && t.fixedSize() && name.endsWith("[]")) {
            return name.substring(0, name.length() - 1) + elementCount + "] (" + byteLength + " bytes)";
        }
        if (t == TypeCode.BYTE_BUFFER) {
            return "ByteBuffer of capacity " + elementCount;
        }
        return name + " (" + byteLength + " bytes)";
    }
}
