package io.jckpt.runtime.programs;

import mpi.MPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs through SLF4J as a program of its own would, for the logging tests: an INFO line from its
 * own logger, a DEBUG line from a logger under {@code io.jckpt} (whose level {@code --log-level}
 * sets with the launcher's binding), and which logger factory the library and the program share.
 */
public final class LoggingProgram {
    /** The program's own logger (this class's package is the library's, io.jckpt). */
    private static final Logger LOG = LoggerFactory.getLogger("org.example.Program");

    private LoggingProgram() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        LOG.info("program info line from rank {}", rank);
        LoggerFactory.getLogger("io.jckpt.probe").debug("library debug line from rank {}", rank);
        System.out.println("logger factory " + LoggerFactory.getILoggerFactory().getClass().getName()
                + " same as the library's: " + (LoggerFactory.class.getClassLoader() == ClassLoader.getSystemClassLoader()));
        MPI.Finalize();
    }
}
