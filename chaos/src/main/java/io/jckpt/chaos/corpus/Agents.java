package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import io.jckpt.IntervalPolicy;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import mpi.MPI;

/**
 * Corpus: records and enums inside the program's own objects. An agent simulation on a ring of cells
 * split across ranks: a {@code World} holds an {@code ArrayList<Agent>} that grows and shrinks (agents
 * are born, die, and move to the neighbouring rank), each {@code Agent} with an enum {@code Kind} and
 * a record {@code Position}; counts by kind in {@code EnumMap}s, the last few events as records in a
 * list, the phase of the simulation an enum field, a {@link SplittableRandom} in a field. Agents that
 * leave the rank's cells go to the neighbour through two Sendrecv's per direction (a count, then the
 * agents as ints); the population is Allreduced every tick. One {@code World} registered
 * unconditionally; {@code hereIfDue(tick)} with an interval the program sets ({@code seconds:0.3}, rank
 * 0's clock). Rank 0 prints {@code agents: ...}.
 *
 * <pre>Agents [ticks] [cells per rank] [seed]</pre>
 */
public final class Agents {
    private Agents() {
    }

    enum Kind { PLANT, GRAZER, HUNTER }

    enum Phase { GROWING, CROWDED }

    record Position(int cell, int heading) {
        Position moved(int cells) {
            return new Position(Math.floorMod(cell + heading, cells), heading);
        }
    }

    record Event(long tick, Kind kind, String what) {
    }

    static final class Agent {
        final int id;
        final Kind kind;
        Position position;
        int energy;

        Agent(int id, Kind kind, Position position, int energy) {
            this.id = id;
            this.kind = kind;
            this.position = position;
            this.energy = energy;
        }
    }

    static final class World {
        final List<Agent> agents = new ArrayList<>();
        final EnumMap<Kind, Long> born = new EnumMap<>(Kind.class);
        final EnumMap<Kind, Long> died = new EnumMap<>(Kind.class);
        final List<Event> recent = new ArrayList<>();
        final SplittableRandom rng;
        Phase phase = Phase.GROWING;
        long tick;
        int nextId;

        World(int rank, long seed) {
            rng = new SplittableRandom(seed * 101 + rank);
            nextId = rank * 1_000_000;
            for (Kind k : Kind.values()) {
                born.put(k, 0L);
                died.put(k, 0L);
            }
        }

        void event(Kind kind, String what) {
            recent.add(new Event(tick, kind, what));
            if (recent.size() > 16) {
                recent.remove(0);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        long ticks = a.length > 0 ? Long.parseLong(a[0]) : 150;
        int cellsPerRank = a.length > 1 ? Integer.parseInt(a[1]) : 400;
        long seed = a.length > 2 ? Long.parseLong(a[2]) : 1;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        int cells = cellsPerRank * size;
        int first = rank * cellsPerRank;

        World world = new World(rank, seed);
        for (int i = 0; i < cellsPerRank; i++) {
            Kind kind = Kind.values()[world.rng.nextInt(3)];
            world.agents.add(new Agent(world.nextId++, kind, new Position(first + world.rng.nextInt(cellsPerRank),
                    world.rng.nextBoolean() ? 1 : -1), 20));
        }
        Ckpt.open(CkptOptions.builder().interval(IntervalPolicy.everySeconds(0.3)).build());
        Ckpt.register("world", world);

        long[] population = new long[Kind.values().length];
        long[] global = new long[population.length];
        List<Agent> toLeft = new ArrayList<>();
        List<Agent> toRight = new ArrayList<>();
        while (world.tick < ticks) {
            world.tick++;
            toLeft.clear();
            toRight.clear();
            for (Iterator<Agent> it = world.agents.iterator(); it.hasNext();) {
                Agent ag = it.next();
                ag.position = ag.kind == Kind.PLANT ? ag.position : ag.position.moved(cells);
                ag.energy += switch (ag.kind) {
                    case PLANT -> world.phase == Phase.CROWDED ? -3 : 1;
                    case GRAZER -> world.rng.nextInt(3) - 1;
                    case HUNTER -> world.rng.nextInt(5) - 2;
                };
                if (ag.energy <= 0) {
                    it.remove();
                    world.died.merge(ag.kind, 1L, Long::sum);
                    world.event(ag.kind, "died " + ag.id);
                    continue;
                }
                int cell = ag.position.cell();
                if (cell < first || cell >= first + cellsPerRank) {
                    it.remove();
                    boolean right = cell == Math.floorMod(first + cellsPerRank, cells);
                    (right ? toRight : toLeft).add(ag);
                }
            }
            int births = world.agents.size() / 50;
            for (int b = 0; b < births; b++) {
                Agent parent = world.agents.get(world.rng.nextInt(world.agents.size()));
                if (parent.energy > 10) {
                    parent.energy /= 2;
                    world.agents.add(new Agent(world.nextId++, parent.kind, new Position(parent.position.cell(),
                            -parent.position.heading()), parent.energy));
                    world.born.merge(parent.kind, 1L, Long::sum);
                    world.event(parent.kind, "born of " + parent.id);
                }
            }
            migrate(world, toRight, (rank + 1) % size, (rank - 1 + size) % size, 21);
            migrate(world, toLeft, (rank - 1 + size) % size, (rank + 1) % size, 22);

            java.util.Arrays.fill(population, 0);
            for (Agent ag : world.agents) {
                population[ag.kind.ordinal()]++;
            }
            MPI.COMM_WORLD.Allreduce(population, 0, global, 0, population.length, MPI.LONG, MPI.SUM);
            world.phase = global[0] + global[1] + global[2] > 2L * cells ? Phase.CROWDED : Phase.GROWING;
            if (world.phase == Phase.CROWDED) { // the crowd thins: the weakest die at once, plants wither
                world.agents.removeIf(ag -> ag.energy < 3);
            }
            Ckpt.hereIfDue(world.tick);
        }

        long h = world.tick;
        for (Agent ag : world.agents) {
            h = h * 31 + ag.id;
            h = h * 31 + ag.kind.ordinal();
            h = h * 31 + ag.position.cell() * 3L + ag.position.heading();
            h = h * 31 + ag.energy;
        }
        for (Map.Entry<Kind, Long> e : world.born.entrySet()) {
            h = h * 31 + e.getValue() - world.died.get(e.getKey());
        }
        for (Event e : world.recent) {
            h = h * 31 + e.tick() + e.kind().ordinal() + e.what().hashCode();
        }
        h = h * 31 + world.phase.ordinal();
        h = h * 31 + world.rng.nextLong();
        long[] mine = {h, world.agents.size()};
        long[] all = new long[2 * size];
        MPI.COMM_WORLD.Gather(mine, 0, 2, MPI.LONG, all, 0, 2, MPI.LONG, 0);
        if (rank == 0) {
            long hash = 0;
            long agents = 0;
            for (int r = 0; r < size; r++) {
                hash = hash * 1_000_003L + all[2 * r];
                agents += all[2 * r + 1];
            }
            System.out.printf("agents: %d ticks on %d cells and %d ranks, %d agents, hash %016x%n", world.tick, cells,
                    size, agents, hash);
        }
        Ckpt.close();
        MPI.Finalize();
    }

    /** Sends {@code leaving} to {@code to} and takes in what {@code from} sends: a count, then 5 ints per agent. */
    private static void migrate(World world, List<Agent> leaving, int to, int from, int tag) throws Exception {
        int[] count = {leaving.size()};
        int[] incoming = new int[1];
        MPI.COMM_WORLD.Sendrecv(count, 0, 1, MPI.INT, to, tag, incoming, 0, 1, MPI.INT, from, tag);
        int[] out = new int[5 * leaving.size()];
        for (int i = 0; i < leaving.size(); i++) {
            Agent ag = leaving.get(i);
            out[5 * i] = ag.id;
            out[5 * i + 1] = ag.kind.ordinal();
            out[5 * i + 2] = ag.position.cell();
            out[5 * i + 3] = ag.position.heading();
            out[5 * i + 4] = ag.energy;
        }
        int[] in = new int[5 * incoming[0]];
        MPI.COMM_WORLD.Sendrecv(out, 0, out.length, MPI.INT, to, tag + 100, in, 0, in.length, MPI.INT, from, tag + 100);
        for (int i = 0; i < incoming[0]; i++) {
            world.agents.add(new Agent(in[5 * i], Kind.values()[in[5 * i + 1]],
                    new Position(in[5 * i + 2], in[5 * i + 3]), in[5 * i + 4]));
        }
    }
}
