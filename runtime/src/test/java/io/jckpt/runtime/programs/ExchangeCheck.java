package io.jckpt.runtime.programs;

import io.jckpt.runtime.rank.RankControl;
import io.jckpt.runtime.rank.RankServices;
import io.jckpt.spi.Collective;
import java.nio.ByteBuffer;
import java.time.Duration;
import mpi.MPI;

/** Runs status exchanges through the launcher and checks every rank's contribution arrived intact. */
public final class ExchangeCheck {
    private ExchangeCheck() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rounds = appArgs.length > 0 ? Integer.parseInt(appArgs[0]) : 5;
        RankControl control = RankServices.control();
        int rank = control.rank();
        int size = MPI.COMM_WORLD.Size();
        for (int round = 0; round < rounds; round++) {
            // contributions of different sizes per rank and round
            ByteBuffer mine = ByteBuffer.allocate(8 + rank * 100 + round);
            mine.putInt(rank).putInt(round);
            byte[][] all = control.allgather(RankServices.threadEpoch(), Collective.of(Collective.Kind.TEST, round),
                    mine.array(), Duration.ofSeconds(30));
            if (all.length != size) {
                throw new IllegalStateException("exchange returned " + all.length + " parts for " + size + " ranks");
            }
            for (int r = 0; r < size; r++) {
                ByteBuffer part = ByteBuffer.wrap(all[r]);
                if (all[r].length != 8 + r * 100 + round || part.getInt() != r || part.getInt() != round) {
                    throw new IllegalStateException("round " + round + ": part of rank " + r + " is wrong");
                }
            }
        }
        System.out.println("exchange ok " + rounds + " rounds");
        MPI.Finalize();
    }
}
