package io.jckpt.imem;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Child process for the kill -9 test: writes rounds 1, 2, ... of rank 0's image into a store, each
 * in 64 KiB chunks with a short pause, printing "ROUND r" after each commit. With mode "pause" it
 * stops in the middle of round 2 (after printing "MIDWRITE") and waits to be killed.
 */
public final class TornWriteMain {
    static final int IMAGE = 1 << 20;
    static final int CHUNK = 64 << 10;

    private TornWriteMain() {
    }

    static ReplicaStoreConfig config(Path dir) {
        return new ReplicaStoreConfig(dir, 0, 2, 1, 2, IMAGE, 64L << 20);
    }

    static byte pattern(long round, int i) {
        return (byte) (round * 31 + i * 7 + (i >>> 12));
    }

    /**
     * @param args store directory, mode ("loop" or "pause")
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean pause = args[1].equals("pause");
        try (ReplicaStore store = ReplicaStore.open(config(Path.of(args[0])))) {
            for (long round = 1; round < 100_000; round++) {
                ReplicaWrite w = store.beginWrite(0, round, IMAGE);
                ByteBuffer img = w.image();
                for (int i = 0; i < IMAGE; i++) {
                    img.put(i, pattern(round, i));
                    if ((i + 1) % CHUNK == 0) {
                        if (pause && round == 2 && i + 1 == IMAGE / 2) {
                            System.out.println("MIDWRITE");
                            System.out.flush();
                            Thread.sleep(TimeUnit.SECONDS.toMillis(60));
                        }
                        LockSupport.parkNanos(1_000_000);
                    }
                }
                w.commit();
                System.out.println("ROUND " + round);
                System.out.flush();
            }
        }
    }
}
