package io.jckpt;

import io.jckpt.spi.RankContext;

/**
 * One rank's checkpointer: the instance behind the static {@link Ckpt} facade, usable directly by
 * tests and by programs that want no global state. Created by a
 * {@link io.jckpt.spi.CheckpointerProvider}; not thread-safe: call it from the program's main thread.
 *
 * <h2>Contract</h2>
 * The simplest correct program registers everything unconditionally, on a fresh start and after a
 * failure alike:
 * <pre>{@code
 * Ckpt.open();
 * Ckpt.register("u", u);          // a recovery restores u in place here
 * Ckpt.register("step", step);
 * while (step[0] < n) { compute(u); step[0]++; Ckpt.here(step[0]); }
 * Ckpt.close();
 * }</pre>
 * <ul>
 * <li>Data is registered by reference: {@link #here()} captures its contents at that moment.</li>
 * <li>During a recovery ({@link #isRecovery()}), {@link #register register(tag, x)} of a tag the restored
 * checkpoint holds restores {@code x} in place, exactly as {@link #rollback rollback(tag, x)} does (the
 * same checks: another type or size is a {@link DataMismatchException}); a tag it does not hold is
 * registered fresh. {@code rollback} stays the explicit form.</li>
 * <li>At the first here(), ctrl() or close() after a recovery, every tag of the restored checkpoint must
 * have been restored ({@code register} or {@code rollback}) or dropped ({@link #remove}): otherwise every
 * rank fails there with one {@link UnrestoredTagsException} naming the ranks and the tags; a checkpointed
 * object is never silently left at its initial value. That call releases the restored checkpoint: a
 * rollback after it is a {@link CkptStateException}.</li>
 * <li>{@link #rollback(String, Object) rollback(tag, x)} restores into {@code x} itself, for every type
 * {@link #register} accepts, and {@code x} stays the registered object; any subset of tags, in any
 * order. Arrays, arrays of arrays (row by row), ByteBuffers and atomic arrays must have the saved
 * length or shape (checked before anything is written). An object saved through Kryo has its state
 * copied into {@code x}: a collection's or map's contents, an {@code Object[]}'s slots, an
 * {@code AtomicReference}'s value, the fields of an object of the program's classes (final ones too;
 * transient ones are left as they are); the objects reachable from {@code x} are new ones.
 * {@link #rollbackObject(String, Class)} restores when the rank has no object yet.</li>
 * <li>Immutable values (boxed primitives, String, enums, records, unmodifiable collections, other JDK
 * value classes) are refused by {@link #register}, whose message says what to register instead (e.g. a
 * {@code long[1]} or an {@code AtomicLong} for a counter).</li>
 * <li>here(), ctrl() and close() are collective: every rank calls them, in the same order.</li>
 * <li>{@link #here(long) here(step)} passes the program's own step (its iteration count, as FTI's
 * checkpoint id); the ranks' steps of each round are compared (see {@link #here(long)}), so a rank that
 * skipped or added a here() is named while the program runs, and a recovery never resumes ranks from
 * different steps. Without a step, a skipped or extra here() is named at the next ctrl() or close(),
 * whose exchanges compare the ranks' rounds.</li>
 * <li>Every wait is bounded by the timeouts in {@link CkptOptions}.</li>
 * </ul>
 */
public interface Checkpointer extends AutoCloseable {
    /** The step of a {@link #here()} without one. */
    long NO_STEP = -1;

    /** @return the rank this checkpointer serves */
    RankContext context();

    /** @return the options in force (after any {@link #ctrl(CtrlOptions)}) */
    CkptOptions options();

    /**
     * Marks data to checkpoint (the paper's MPI_Ckpt). During a recovery, before its first here(),
     * ctrl() or close(), a tag the restored checkpoint holds is first restored into {@code data} in place
     * (as {@link #rollback(String, Object)}, with its checks and exceptions).
     *
     * @param tag  unique name of the data on this rank
     * @param data a primitive array, an array of primitive arrays (any depth), a ByteBuffer, a Chronicle
     *             Bytes, an {@code AtomicInteger}/{@code AtomicLong}/{@code AtomicBoolean}/{@code AtomicIntegerArray}/
     *             {@code AtomicLongArray}, or an object Kryo can serialize and rollback can restore in place
     *             (a modifiable collection or map, an array of references, an {@code AtomicReference}, an
     *             object of the program's own classes)
     * @throws DuplicateTagException    when the tag is registered already
     * @throws UnsupportedDataException when data is null, of an unsupported type, or immutable (a boxed
     *                                  primitive, a String, an enum, a record, ...), saying what to register instead
     * @throws InvalidTagException      when the tag is null, empty or too long
     * @throws DataMismatchException    during a recovery, when the checkpoint saved the tag with another type,
     *                                  size or shape; {@code data} is then left unchanged
     * @throws CkptStateException       when closed
     */
    void register(String tag, Object data);

    /**
     * Checkpoints everything registered (the paper's MPI_Ckpt_here); collective. A pending
     * {@link #ctrl(CtrlOptions) ctrl(m)} is applied here, on every rank at the same round. When the
     * slots grow ({@link CkptOptions#slotCapacity()} 0) and this rank's image outgrew them, the round
     * is not taken on this rank and every rank grows the slots at the next here().
     *
     * @throws CkptStateException when closed
     * @throws StorageException    when the store cannot hold the checkpoint (memory for m copies, a fixed
     *                             slot capacity exceeded), naming the numbers; nothing checkpointed is lost
     * @throws UnrestoredTagsException at the first here() after a recovery, on every rank, when a rank left a
     *                             tag of the restored checkpoint neither restored nor removed
     */
    void here();

    /**
     * {@link #here()}, with the program's step at this call (its iteration count: any number {@code >= 0}
     * that is the same on every rank at the same here(), as FTI_Checkpoint's id). The step is saved with
     * the round and the ranks' steps are compared, so that a rank that skipped or added a here() (or
     * passed another step) is a {@link StepMismatchException} on every rank, naming it, its step and the
     * others', instead of rounds silently out of step:
     * <ul>
     * <li>while the program runs, the steps of round r are compared at the here() of round r + 1, which
     * waits for round r anyway: with growing slots ({@link CkptOptions#slotCapacity()} 0, the default)
     * and copies on other ranks, on the replication ring's watermarks (no message of its own); with more
     * than two versions kept or an adaptive interval, on the background size agreement. With a fixed
     * slot capacity and no adaptive interval (no exchange per here()), at the next ctrl() or close();</li>
     * <li>ctrl() and close() compare the step of the last here();</li>
     * <li>a recovery's open compares the steps of the round it restored, before the program resumes.</li>
     * </ul>
     * A rank that differs learns it at its own next here(), ctrl() or close() (or its open).
     *
     * @param step the program's step, {@code >= 0}
     * @throws IllegalArgumentException when {@code step < 0}
     * @throws StepMismatchException    on every rank, when the ranks' steps of a round differ
     * @see #here()
     */
    void here(long step);

    /**
     * Whether a checkpoint is due at this call, by the {@link CkptOptions#interval() interval policy}
     * (SCR's {@code SCR_Need_checkpoint}, decided online). Call it once per iteration on every rank, at
     * a point where here() may be called; when it returns true, call {@link #here()} (or use
     * {@link #hereIfDue()}). It makes no communication, allocates nothing and reads no clock: it counts
     * the calls and compares the count with the call number of the next checkpoint, which every rank
     * holds identically, so it gives the same answer on every rank at the same call.
     *
     * <p>How the ranks agree without exchanging anything per call: at each here() rank 0 decides, from
     * its own clock and measurements, the interval (in calls) after the next here(); the decision rides
     * on an exchange here() makes anyway (the ring's watermarks, or the background size agreement) and
     * every rank applies it at the next here(). After open() (a recovery included) and after a ctrl that
     * changes the policy every rank restarts from the same deterministic warm-up: adaptive policies
     * checkpoint at calls 1, 2, 4 and 8 until rank 0's decisions arrive; {@code calls:N} needs no
     * decision at all. With {@link IntervalPolicy#manual()} (the default) it always returns false.
     *
     * @return whether to checkpoint now; true again at every call until here() is called
     * @throws CkptStateException when closed (checked at here(), not here: this call is a counter compare)
     */
    boolean needCheckpoint();

    /**
     * {@link #here()} when {@link #needCheckpoint()} says a checkpoint is due; collective like here().
     *
     * @return whether a checkpoint was taken
     */
    default boolean hereIfDue() {
        if (needCheckpoint()) {
            here();
            return true;
        }
        return false;
    }

    /**
     * {@link #here(long) here(step)} when {@link #needCheckpoint()} says a checkpoint is due.
     *
     * @param step the program's step, {@code >= 0}
     * @return whether a checkpoint was taken
     */
    default boolean hereIfDue(long step) {
        if (needCheckpoint()) {
            here(step);
            return true;
        }
        return false;
    }

    /**
     * Restores data from the newest complete checkpoint into {@code data} and re-registers it (the paper's
     * MPI_Rollback). During a recovery, before its first here(), ctrl() or close(); any tags, in any
     * order. {@link #register} of the tag does the same.
     *
     * @param tag  the tag the data was saved under
     * @param data the object to restore into (it holds the restored state afterwards)
     * @param <T>  the data's type
     * @return {@code data} itself
     * @throws UnknownTagException      when nothing was saved under the tag
     * @throws DataMismatchException    when the type, size or shape differs from what was saved (naming the
     *                                  first row that differs); {@code data} is then left unchanged
     * @throws NotRecoverableException  when the checkpoint cannot be restored, or this start is no recovery
     * @throws CkptStateException       after the recovery's first here(), ctrl() or close(), which released the
     *                                  restored checkpoint
     */
    <T> T rollback(String tag, T data);

    /**
     * Restores an object saved under {@code tag} when the rank has no object to restore into (a new rank,
     * or Kryo objects), and registers the result.
     *
     * @param tag  the tag the data was saved under
     * @param type the expected class
     * @param <T>  the expected type
     * @return the restored object, freshly allocated
     * @throws UnknownTagException   when nothing was saved under the tag
     * @throws DataMismatchException when the saved object is not a {@code type}
     */
    <T> T rollbackObject(String tag, Class<T> type);

    /**
     * Stops checkpointing a tag (the paper's MPI_Remove_ckpt). During a recovery it also drops a tag of
     * the restored checkpoint that the program does not restore (it is then accounted for).
     *
     * @param tag the tag
     * @throws UnknownTagException when the tag is neither registered nor in the restored checkpoint
     */
    void remove(String tag);

    /**
     * Changes run-time options on every rank, consistently (the paper's MPI_Ckpt_ctrl); collective:
     * every rank calls it at the same point with the same change, which is checked with one status
     * exchange (ranks disagreeing get an {@link InvalidOptionException} on every rank, no deadlock).
     * The disk ratio applies from the next here(). A new replication degree m ({@code 0..n-1}, not
     * below {@link CkptOptions#minReplicas()}) is applied collectively at the next here(), so every rank
     * switches at the same round: the last round under the old m is first complete everywhere, then
     * new node-local stores and ring links are made for the new m, and the old store is deleted only
     * once the first round under the new m is complete everywhere; a recovery in between restores from
     * whichever is the newest complete round. After the switch a recovery reads, and continues with,
     * the m recorded in the node-local stores. Memory for the new m is checked as at the first here()
     * (see {@link MemoryShortage}).
     *
     * @param ctrl the change
     * @throws InvalidOptionException when the change is invalid (e.g. replicas &gt; n-1)
     */
    void ctrl(CtrlOptions ctrl);

    /**
     * @return whether this start is a recovery: there is a checkpoint to restore, which {@link #register}
     *         and {@link #rollback} restore from
     */
    boolean isRecovery();

    /** @return whether this rank was re-spawned and has no memory of earlier rounds */
    boolean isNewRank();

    /** @return the newest round taken or restored by this rank, 0 when none */
    long round();

    /** @return a snapshot of counters and timings */
    CkptStats stats();

    /** Stops background threads and releases stores; idempotent. */
    @Override
    void close();
}
