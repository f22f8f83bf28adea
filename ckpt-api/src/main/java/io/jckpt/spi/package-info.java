/**
 * What implementations plug into: {@link io.jckpt.spi.CheckpointerProvider} (found with ServiceLoader),
 * the {@link io.jckpt.spi.RankContext} the launcher provides, and the
 * {@link io.jckpt.spi.RankCollective} typed collective (with {@link io.jckpt.spi.LocalRankCollective} for
 * tests that run ranks as threads).
 */
package io.jckpt.spi;
