/**
 * Every message the ranks exchange through the {@link io.jckpt.spi.RankCollective}, one record per
 * {@link io.jckpt.spi.Collective.Kind}, each with its {@link io.jckpt.wire.Exchange} (kind, layout
 * version, and the one codec of that message): {@link io.jckpt.wire.OpenStatus} (with
 * {@link io.jckpt.wire.RankStatus} and the disk level's {@link io.jckpt.wire.RankInventory}), {@link io.jckpt.wire.RankStatus} alone, {@link io.jckpt.wire.RestoreDone},
 * {@link io.jckpt.wire.RestoredStep}, {@link io.jckpt.wire.UnrestoredTags}, {@link io.jckpt.wire.SizeVote},
 * {@link io.jckpt.wire.ReconfigureStatus}, {@link io.jckpt.wire.SwitchReady}, {@link io.jckpt.wire.CtrlCheck},
 * {@link io.jckpt.wire.CloseCheck}, {@link io.jckpt.wire.CloseSettled}, and {@link io.jckpt.wire.DataAddress}
 * for tests. Codecs are made only here ({@code Exchange.of} is package-private): a malformed message is a
 * {@link io.jckpt.wire.WireFormatException} naming the exchange and the rank, never a value read from the
 * wrong bytes.
 */
package io.jckpt.wire;
