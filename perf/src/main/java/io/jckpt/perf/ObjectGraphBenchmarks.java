package io.jckpt.perf;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.jckpt.data.DataAdapter;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.RegisteredData;
import io.jckpt.data.SavedEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.objenesis.strategy.StdInstantiatorStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH benchmarks of the state graph codec (run by {@link ObjectsSection}, forked JVMs): saving a
 * representative program state (a list of particles of the program's own class, a HashMap of
 * parameters, a Random, an array) into a store and restoring it in place, against Kryo's own
 * serialization of the same graph (write, then read a new graph: no store, no copies) and against a
 * {@code double[]} of the same byte size through jckpt's primitive array adapter. Sample time: the
 * section reports percentiles of single calls, whose lower ones the machine's other load disturbs least.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ObjectGraphBenchmarks {
    /** A particle: the program's own class, primitive fields. */
    public static final class Particle {
        double x;
        double y;
        double z;
        double vx;
        double vy;
        double vz;
        double mass;
        int id;
        int cell;
    }

    /** The program's state. */
    public static final class Simulation {
        final List<Particle> particles = new ArrayList<>();
        final HashMap<String, Double> params = new HashMap<>();
        final Random rng = new Random(1);
        final double[] energy = new double[64];
        long step;

        static Simulation of(int n) {
            Simulation s = new Simulation();
            for (int i = 0; i < n; i++) {
                Particle p = new Particle();
                p.x = s.rng.nextDouble();
                p.y = s.rng.nextDouble();
                p.z = s.rng.nextDouble();
                p.vx = s.rng.nextGaussian();
                p.vy = s.rng.nextGaussian();
                p.vz = s.rng.nextGaussian();
                p.mass = 1 + s.rng.nextDouble();
                p.id = i;
                p.cell = i % 97;
                s.particles.add(p);
            }
            for (int i = 0; i < 100; i++) {
                s.params.put("param" + i, s.rng.nextDouble());
            }
            return s;
        }
    }

    /** Particles in the graph. */
    @Param({"10000"})
    public int particles;

    private Simulation sim;
    private DataAdapters adapters;
    private RegisteredData graph;
    private DataAdapter<Object> graphAdapter;
    private RegisteredData array;
    private DataAdapter<Object> arrayAdapter;
    private double[] flat;
    private BytesStore<?, ?> store;
    private Kryo kryo;
    private Output output;
    private Input input;

    /** Builds the graph, its registrations and Kryo. */
    @Setup(Level.Trial)
    public void setUp() {
        sim = Simulation.of(particles);
        adapters = DataAdapters.builder().rank(0).build();
        graph = adapters.bind("sim", sim);
        graphAdapter = graph.adapter();
        long bytes = graph.prepare();
        flat = new double[(int) (bytes / 8)];
        array = adapters.bind("flat", flat);
        arrayAdapter = array.adapter();
        store = BytesStore.nativeStoreWithFixedCapacity(2 * bytes + 4096);
        kryo = new Kryo();
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        kryo.register(Simulation.class);
        kryo.register(Particle.class);
        kryo.register(ArrayList.class);
        kryo.register(HashMap.class);
        kryo.register(Random.class);
        kryo.addDefaultSerializer(AtomicLong.class, new DefaultSerializers.AtomicLongSerializer()); // as jckpt's KryoAdapter
        kryo.register(AtomicLong.class);
        kryo.register(double[].class);
        output = new Output(4096, -1);
        input = new Input();
    }

    /** Releases the store. */
    @TearDown(Level.Trial)
    public void tearDown() {
        store.releaseLast();
    }

    /** @return the graph's payload bytes (what here() writes for it) */
    public long graphBytes() {
        return graph.prepare();
    }

    private SavedEntry entry(RegisteredData r, long length) {
        return new SavedEntry(r.tag(), 0, r.typeCode().code(), r.elementCount(), length, 0);
    }

    /**
     * What here() does for the graph on the program's thread: the graph into its staging buffer, then
     * one copy into the store.
     *
     * @return the payload length
     */
    @Benchmark
    public long graphWrite() {
        sim.step++;
        long n = graph.prepare();
        graph.writeTo(store, 0);
        return n;
    }

    /**
     * Saved, then restored in place from the store (both passes).
     *
     * @return the restored object
     */
    @Benchmark
    public Object graphRoundTrip() {
        sim.step++;
        long n = graph.prepare();
        graph.writeTo(store, 0);
        return graphAdapter.restore(entry(graph, n), store, sim);
    }

    /**
     * Kryo writes the same graph into its buffer (no store).
     *
     * @return the bytes written
     */
    @Benchmark
    public int kryoWrite() {
        sim.step++;
        output.reset();
        kryo.writeClassAndObject(output, sim);
        return output.position();
    }

    /**
     * Kryo writes the graph and reads a new one from its bytes (no store).
     *
     * @return the new graph
     */
    @Benchmark
    public Object kryoRoundTrip() {
        sim.step++;
        output.reset();
        kryo.writeClassAndObject(output, sim);
        input.setBuffer(output.getBuffer(), 0, output.position());
        return kryo.readClassAndObject(input);
    }

    /**
     * A double[] of the graph's payload size into the store.
     *
     * @return the length
     */
    @Benchmark
    public long arrayWrite() {
        flat[0]++;
        long n = array.prepare();
        array.writeTo(store, 0);
        return n;
    }

    /**
     * The same array saved and restored in place.
     *
     * @return the array
     */
    @Benchmark
    public Object arrayRoundTrip() {
        flat[0]++;
        long n = array.prepare();
        array.writeTo(store, 0);
        return arrayAdapter.restore(entry(array, n), store, flat);
    }
}
