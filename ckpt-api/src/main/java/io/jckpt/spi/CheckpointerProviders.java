package io.jckpt.spi;

import io.jckpt.CkptException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Finds the {@link CheckpointerProvider} with {@link ServiceLoader}. When the system property
 * {@value #PROVIDER_PROPERTY} names a provider class, that one is used; otherwise the one with the
 * highest {@link CheckpointerProvider#priority()}; a tie at the top is an error (it would make the
 * choice depend on class path order).
 */
public final class CheckpointerProviders {
    /** System property naming the provider class to use. */
    public static final String PROVIDER_PROPERTY = "jckpt.provider";
    /** The module that holds the standard implementation, named in the error when none is found. */
    public static final String IMPLEMENTATION_MODULE = "io.jckpt:two-level-policy";

    private CheckpointerProviders() {
    }

    /**
     * @param loader where to look
     * @return the chosen provider
     * @throws CkptException when none (or no unique one) is found
     */
    public static CheckpointerProvider load(ClassLoader loader) {
        List<CheckpointerProvider> all = new ArrayList<>();
        try {
            for (CheckpointerProvider p : ServiceLoader.load(CheckpointerProvider.class, loader)) {
                all.add(p);
            }
        } catch (ServiceConfigurationError e) {
            throw new CkptException("a CheckpointerProvider on the class path could not be loaded: " + e.getMessage(), e);
        }
        String wanted = System.getProperty(PROVIDER_PROPERTY);
        if (wanted != null && !wanted.isBlank()) {
            return all.stream().filter(p -> p.getClass().getName().equals(wanted.trim())).findFirst()
                    .orElseThrow(() -> new CkptException("-D" + PROVIDER_PROPERTY + "=" + wanted
                            + " names no provider on the class path; found " + names(all)));
        }
        if (all.isEmpty()) {
            throw new CkptException("no checkpoint implementation found: put the module " + IMPLEMENTATION_MODULE
                    + " (or another jar with META-INF/services/" + CheckpointerProvider.class.getName()
                    + ") on the class path");
        }
        all.sort(Comparator.comparingInt(CheckpointerProvider::priority).reversed());
        if (all.size() > 1 && all.get(0).priority() == all.get(1).priority()) {
            throw new CkptException("several checkpoint implementations with the same priority: " + names(all)
                    + "; choose one with -D" + PROVIDER_PROPERTY + "=<class name>");
        }
        return all.get(0);
    }

    private static String names(List<CheckpointerProvider> all) {
        return all.stream().map(p -> p.getClass().getName() + " (priority " + p.priority() + ")")
                .collect(Collectors.joining(", ", "[", "]"));
    }
}
