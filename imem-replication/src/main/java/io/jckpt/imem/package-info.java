/**
 * The in-memory checkpoint level (imem-m-rep): node-local replica stores in memory-mapped files
 * ({@link io.jckpt.imem.ReplicaStore}), ring replication to m successors with explicit completion
 * and a global completed round ({@link io.jckpt.imem.ReplicationAgent}), and recovery: the status
 * exchange, a deterministic rollback plan ({@link io.jckpt.imem.RollbackPlanner}) and the transfers
 * to re-spawned ranks ({@link io.jckpt.imem.RollbackTransfer}). Decisions and measurements: the
 * module's README.md.
 */
package io.jckpt.imem;
