package io.jckpt.data;

/**
 * The layout of a state graph payload (type code {@link TypeCode#STATE_GRAPH}): the one place that says
 * what the bytes are. Written by {@link GraphWriter}, read by {@link GraphReader}. Scalars are in the
 * image's (native) byte order, unaligned; {@code varint} is unsigned LEB128 (7 bits a byte, low first).
 *
 * <pre>
 * payload   := MAGIC:u8 VERSION:u8 value                    the root is an OBJECT
 * value     := tag:u8 body
 *   NULL                                                   null
 *   REF       id:varint                                    an object read before (shared, or a cycle)
 *   OBJECT    class body                                   a new object; takes the next id before its body
 *   RECORD    class components                             a record; takes the next id after its components
 *   STRING    length:varint (char:varint)*                 java.lang.String
 *   TRUE | FALSE | BYTE i8 | SHORT i16 | CHAR u16          the boxed primitives
 *   INT i32 | LONG i64 | FLOAT f32 | DOUBLE f64
 *   ENUM      class ordinal:varint                         an enum constant
 *   BIG_INTEGER length:varint byte*                        two's complement, big-endian (toByteArray)
 *   BIG_DECIMAL length:varint byte* scale:i32              unscaled value as above
 *   SINGLETON index:varint                                 a JDK singleton ({@link #SINGLETONS})
 *   KEPT                                                   a comparator the codec does not save: the
 *                                                          program's own one is kept (restore in place only)
 *   IMMUTABLE class count:varint value*                    List.of, Set.of, Map.of (key value pairs), ...
 * class     := index:varint                                index = classes defined so far: a definition follows
 * class-def := kind:u8 name:STRING-body kind-specific
 *   K_OWN | K_RECORD   count:varint (field-name:STRING-body field-kind:u8)*   the layout, superclass fields first
 *   K_ENUM             constants:varint
 *   K_PRIMITIVE_ARRAY | K_OBJECT_ARRAY | K_JDK             nothing (the name says it: "[D", "java.util.HashMap")
 * body by the class's kind
 *   K_OWN              per field: primitive raw, or a value
 *   K_PRIMITIVE_ARRAY  length:varint, the elements' memory (booleans one byte each)
 *   K_OBJECT_ARRAY     length:varint value*
 *   K_JDK              see {@link JdkType}: sequences count value*; hash sets and maps capacity:varint
 *                      loadFactor:f32 [accessOrder:u8] count value* or (key value)*; sorted ones comparator
 *                      value first; EnumSet/EnumMap the enum class first; Random seed:i64 nextNextGaussian:f64
 *                      haveNextNextGaussian:u8; SplittableRandom seed:i64 gamma:i64; BitSet words:varint i64*;
 *                      atomics their value(s); ByteBuffer direct:u8 capacity:varint byte*; Bytes length:varint byte*
 * </pre>
 * Field kinds are the JVM's descriptor letters ({@code Z B C S I J F D}) and {@code L} for a reference.
 * Ids count OBJECT and RECORD values in stream order from 0 (the root). Records and values are never
 * restored in place (they are immutable); objects are (see {@link GraphReader}).
 */
final class StateGraphDescriptor {
    /** First byte of every payload. */
    static final int MAGIC = 0x53; // 'S'
    /** Format version. */
    static final int VERSION = 1;

    static final int NULL = 0;
    static final int REF = 1;
    static final int OBJECT = 2;
    static final int RECORD = 3;
    static final int STRING = 4;
    static final int TRUE = 5;
    static final int FALSE = 6;
    static final int BYTE = 7;
    static final int SHORT = 8;
    static final int CHAR = 9;
    static final int INT = 10;
    static final int LONG = 11;
    static final int FLOAT = 12;
    static final int DOUBLE = 13;
    static final int ENUM = 14;
    static final int BIG_INTEGER = 15;
    static final int BIG_DECIMAL = 16;
    static final int SINGLETON = 17;
    static final int KEPT = 18;
    static final int IMMUTABLE = 19;
    /** One past the largest tag. */
    static final int TAG_LIMIT = 20;

    static final int K_OWN = 1;
    static final int K_RECORD = 2;
    static final int K_ENUM = 3;
    static final int K_PRIMITIVE_ARRAY = 4;
    static final int K_OBJECT_ARRAY = 5;
    static final int K_JDK = 6;

    /** The JDK singletons saved by index (comparators a sorted collection may hold). */
    static final Object[] SINGLETONS = {java.util.Collections.reverseOrder(), String.CASE_INSENSITIVE_ORDER};

    private StateGraphDescriptor() {
    }

    /**
     * @param singleton an object
     * @return its index in {@link #SINGLETONS}, or -1
     */
    static int singletonIndex(Object singleton) {
        for (int i = 0; i < SINGLETONS.length; i++) {
            if (SINGLETONS[i] == singleton) {
                return i;
            }
        }
        return -1;
    }
}
