package io.jckpt;

import io.jckpt.spi.CheckpointerProvider;
import io.jckpt.spi.RankContext;

/** Test provider, found through META-INF/services in the test resources. */
public final class InMemoryProvider implements CheckpointerProvider {
    @Override
    public Checkpointer create(CkptOptions options, RankContext context) {
        return new InMemoryCheckpointer(options, context);
    }

    @Override
    public String name() {
        return "in-memory (test)";
    }
}
