package io.jckpt.runtime.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The first world's start-up on each rank's lane, named from the events: the ranks' JVMs start and
 * connect ({@code ranks_running}), MPI.Init until the MPJ world formed ({@code world_formed}), the
 * program's own code until it called Ckpt.open, the open ({@code rank_open}: its return and duration),
 * and the program's first steps to its first checkpoint report ({@code checkpoint}). An events file
 * without some of these events (an older launcher) gets the phases it can tell apart, named by what
 * they hold.
 */
final class StartUp {
    /** The kinds of phase, with their colour on the lane and their name in the legend. */
    enum Kind {
        STARTING("#e2e2e2", "JVMs start", "JVMs", "starting: the launcher starts every rank's JVM, each connects to it"),
        MPI_INIT("#cfd8dc", "MPI.Init", "MPI", "MPI.Init: until every rank's ports were exchanged (the MPJ world formed)"),
        PROGRAM("#f3e5c0", "program", "prog", "MPI.Init's peer connections and the program's own start, to its "
                + "Ckpt.open call"),
        OPEN("#c9e4de", "Ckpt.open", "open", "Ckpt.open: stores created, replication peers connected"),
        FIRST_HERE("#e4dcf1", "to 1st here()", "here", "the first steps and the first here(), to its checkpoint report");

        final String colour;
        final String label;
        /** Its name where the label does not fit. */
        final String shortLabel;
        final String legend;

        Kind(String colour, String label, String shortLabel, String legend) {
            this.colour = colour;
            this.label = label;
            this.shortLabel = shortLabel;
            this.legend = legend;
        }
    }

    /**
     * A phase of one rank's start-up (seconds since the job's start).
     *
     * @param kind  what it is
     * @param label its name on the lane
     * @param from  its start
     * @param to    its end
     * @param title its hover text
     */
    record Phase(Kind kind, String label, double from, double to, String title) {
    }

    private StartUp() {
    }

    /**
     * @param events the job's events, in order
     * @param ranks  the job's ranks
     * @param end    the last event's time (a phase not ended by then ends there)
     * @return per rank, its start-up phases in order (empty when the ranks never all connected)
     */
    static List<List<Phase>> of(List<JsonNode> events, int ranks, double end) {
        double running = Double.NaN;
        double formed = Double.NaN;
        double firstRecovery = Double.POSITIVE_INFINITY;
        double[] opened = new double[ranks];
        double[] openMs = new double[ranks];
        double[] checkpoint = new double[ranks];
        double[] hereMs = new double[ranks];
        java.util.Arrays.fill(opened, Double.NaN);
        java.util.Arrays.fill(checkpoint, Double.NaN);
        for (JsonNode e : events) {
            double t = e.path("t").asDouble();
            int rank = e.path("rank").asInt(-1);
            switch (e.path("type").asText()) {
                case "ranks_running" -> running = Double.isNaN(running) ? t : running;
                case "world_formed" -> formed = e.path("epoch").asInt() == 0 && Double.isNaN(formed) ? t : formed;
                case "recovery_start" -> firstRecovery = Math.min(firstRecovery, t);
                case "rank_open" -> {
                    if (rank >= 0 && rank < ranks && e.path("epoch").asInt() == 0 && Double.isNaN(opened[rank])) {
                        opened[rank] = t;
                        openMs[rank] = e.path("open_ms").asDouble();
                    }
                }
                case "checkpoint" -> {
                    if (rank >= 0 && rank < ranks && t < firstRecovery && Double.isNaN(checkpoint[rank])) {
                        checkpoint[rank] = t;
                        hereMs[rank] = e.path("here_ms").asDouble();
                    }
                }
                default -> {
                }
            }
        }
        List<List<Phase>> out = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            List<Phase> phases = new ArrayList<>();
            double connected = Double.isNaN(running) ? end : running;
            phases.add(new Phase(Kind.STARTING, Kind.STARTING.label, 0, connected, fmt("starting: the launcher started "
                    + "every rank's JVM; every rank connected at %.3f s", connected)));
            if (Double.isNaN(running)) {
                out.add(phases);
                continue;
            }
            double at = running;
            if (!Double.isNaN(formed) && formed >= at) {
                phases.add(new Phase(Kind.MPI_INIT, Kind.MPI_INIT.label, at, formed, fmt("MPI.Init: every rank "
                        + "connected at %.3f s; the MPJ world formed (every rank's ports exchanged) at %.3f s", at, formed)));
                at = formed;
            }
            double stop = Double.isNaN(checkpoint[r]) ? Math.min(end, firstRecovery) : checkpoint[r];
            if (!Double.isNaN(opened[r])) {
                double openStart = Math.max(at, opened[r] - openMs[r] / 1000);
                boolean mpi = at == running; // no world_formed: MPI.Init is in this phase
                phases.add(new Phase(Kind.PROGRAM, mpi ? "MPI.Init, program" : Kind.PROGRAM.label, at, openStart,
                        fmt("rank %d: %s from %.3f s to its Ckpt.open call at %.3f s", r,
                                mpi ? "MPI.Init and the program's own start"
                                        : "MPI.Init's peer connections and the program's own start", at,
                                openStart)));
                phases.add(new Phase(Kind.OPEN, Kind.OPEN.label, openStart, opened[r], fmt("rank %d: Ckpt.open from "
                        + "%.3f s to %.3f s (%.0f ms): stores created, replication peers connected", r, openStart,
                        opened[r], openMs[r])));
                at = opened[r];
            }
            if (stop > at) {
                boolean unnamed = Double.isNaN(opened[r]);
                String what = unnamed ? (at == running ? "MPI.Init, Ckpt.open, the first steps and here()"
                        : "the program's start, Ckpt.open, the first steps and here()") : "the first steps and here()";
                String checkpointed = Double.isNaN(checkpoint[r]) ? "no checkpoint reported before "
                        + fmt("%.3f s", stop) : fmt("first checkpoint reported at %.3f s (here() blocked %.1f ms)",
                        stop, hereMs[r]);
                phases.add(new Phase(Kind.FIRST_HERE, unnamed ? "start-up: " + what : Kind.FIRST_HERE.label, at, stop,
                        fmt("rank %d: %s from %.3f s; %s", r, what, at, checkpointed)));
            }
            out.add(phases);
        }
        return out;
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
