/**
 * Records for the apply path in the shape a shard node applies them: chunks of `chunk` records
 * of one partition (the shard node's apply batch), with the partition's next offsets. Players
 * are drawn at random, each to its own partition (its slot); chunks are handed out round robin
 * over the partitions, a partition's chunk once it has `chunk` records waiting, so consecutive
 * chunks (the ones in flight together) are of different partitions, like the shard node's
 * partitions consumed concurrently, and each partition's offsets run on without a gap.
 */

export interface PartitionChunk<T> {
  partition: number;
  /** Offset of items[0]; the others follow it. */
  firstOffset: bigint;
  items: T[];
}

export class PartitionChunks<T> {
  private readonly waiting: T[][];
  private readonly nextOffset: bigint[];
  private turn = 0;

  /**
   * `draw` gives a random item and its partition (0 .. partitions-1); `startOffsets` the offset
   * each partition's first chunk starts at (0 by default: a fresh shard).
   */
  constructor(
    private readonly partitions: number,
    private readonly chunk: number,
    private readonly draw: () => { partition: number; item: T },
    startOffsets?: readonly bigint[],
  ) {
    if (!(chunk >= 1) || !(partitions >= 1)) throw new RangeError("partitions and chunk must be at least 1");
    this.waiting = Array.from({ length: partitions }, () => []);
    this.nextOffset = Array.from({ length: partitions }, (_, p) => startOffsets?.[p] ?? 0n);
  }

  /** The next partition's chunk. */
  next(): PartitionChunk<T> {
    const partition = this.turn;
    this.turn = (this.turn + 1) % this.partitions;
    const mine = this.waiting[partition]!;
    while (mine.length < this.chunk) {
      const { partition: p, item } = this.draw();
      if (!(p >= 0 && p < this.partitions)) throw new RangeError(`partition ${p} out of range`);
      this.waiting[p]!.push(item);
    }
    const items = mine.splice(0, this.chunk);
    const firstOffset = this.nextOffset[partition]!;
    this.nextOffset[partition] = firstOffset + BigInt(items.length);
    return { partition, firstOffset, items };
  }

  /** Each partition's next offset (where a later run on the same shard starts). */
  offsets(): bigint[] {
    return [...this.nextOffset];
  }
}
