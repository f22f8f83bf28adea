package io.jckpt.data;

import io.jckpt.DuplicateTagException;
import io.jckpt.UnknownTagException;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tags registered on one rank, in registration order, with the checks every checkpointer needs:
 * a tag registered twice, a remove of an unknown tag. Shared by the implementations so that they all
 * behave (and word their errors) the same. Not thread-safe.
 */
public final class TagRegistry {
    private final DataAdapters adapters;
    private final Map<String, RegisteredData> entries = new LinkedHashMap<>();
    private final Collection<RegisteredData> view = Collections.unmodifiableCollection(entries.values());

    /** @param adapters chooses the adapters (and knows the rank) */
    public TagRegistry(DataAdapters adapters) {
        this.adapters = adapters;
    }

    /** @return the adapters */
    public DataAdapters adapters() {
        return adapters;
    }

    /**
     * @param tag  the tag
     * @param data the object
     * @return the registration
     * @throws DuplicateTagException when the tag is registered already
     */
    public RegisteredData register(String tag, Object data) {
        RegisteredData existing = tag == null ? null : entries.get(tag);
        if (existing != null) {
            throw new DuplicateTagException(tag, adapters.rank(), existing.describe());
        }
        RegisteredData r = adapters.bind(tag, data);
        entries.put(tag, r);
        return r;
    }

    /**
     * Registers or replaces the object under a tag (rollback re-registers what it restored).
     *
     * @param tag  the tag
     * @param data the object
     * @return the registration
     */
    public RegisteredData rebind(String tag, Object data) {
        RegisteredData r = adapters.bind(tag, data);
        entries.put(tag, r);
        return r;
    }

    /**
     * @param tag the tag
     * @return the removed registration
     * @throws UnknownTagException when the tag is not registered
     */
    public RegisteredData remove(String tag) {
        RegisteredData r = tag == null ? null : entries.remove(tag);
        if (r == null) {
            throw new UnknownTagException(tag, adapters.rank(), "remove", entries.keySet());
        }
        return r;
    }

    /**
     * @param tag the tag
     * @return its registration, or null
     */
    public RegisteredData get(String tag) {
        return entries.get(tag);
    }

    /** @return the registrations, in registration order (a live, unmodifiable view) */
    public Collection<RegisteredData> entries() {
        return view;
    }

    /** @return number of registered tags */
    public int size() {
        return entries.size();
    }

    /** Removes every registration. */
    public void clear() {
        entries.clear();
    }
}
