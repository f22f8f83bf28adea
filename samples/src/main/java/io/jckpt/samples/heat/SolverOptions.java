package io.jckpt.samples.heat;

/** Command-line options of the heat solver, validated on parsing. */
record SolverOptions(int nx, int ny, int iterations, int report, int sleepMillis) {

    static SolverOptions parse(String[] args) {
        int nx = 256;
        int ny = 256;
        int iterations = 1000;
        int report = 100;
        int sleepMillis = 0;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            int value = Integer.parseInt(args[++i]);
            switch (name) {
                case "--nx" -> nx = value;
                case "--ny" -> ny = value;
                case "--iterations" -> iterations = value;
                case "--report" -> report = value;
                case "--sleep-ms" -> sleepMillis = value;
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (iterations < 1 || report < 1 || sleepMillis < 0) {
            throw new IllegalArgumentException("--iterations and --report must be positive, --sleep-ms not negative");
        }
        return new SolverOptions(nx, ny, iterations, report, sleepMillis);
    }
}
