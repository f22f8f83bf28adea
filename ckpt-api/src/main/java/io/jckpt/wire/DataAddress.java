package io.jckpt.wire;

import io.jckpt.spi.Collective;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A rank's in-memory data endpoint, for tests and tools that run the in-memory level without the policy
 * (the library's ranks learn the endpoints from {@link OpenStatus}): exchanged as a
 * {@link Collective.Kind#TEST} collective. Wire body: port (int), address length (int) and bytes.
 *
 * @param address the endpoint's address
 */
public record DataAddress(InetSocketAddress address) {
    /** The exchange. */
    public static final Exchange<DataAddress> EXCHANGE = Exchange.of(Collective.Kind.TEST, 1, DataAddress.class,
            (w, m) -> w.address(m.address), r -> new DataAddress(r.address("data endpoint")));

    /** Checks the address is not null. */
    public DataAddress {
        Objects.requireNonNull(address, "address");
    }
}
