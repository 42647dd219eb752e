/**
 * Where completed profiles wait for the store as UTF-8: slabs of memory allocated once and reused, each profile's
 * JSON and words one region of a slab until the store has written them. In the JavaScript heap, a waiting profile's
 * JSON was the largest thing each scavenge copied and then promoted; a Buffer of its own per profile made V8 count
 * new external memory and mark-compact more often (BENCHMARKS.md). Reused slabs are neither.
 */
export class ProfileArena {
  private current: Slab;
  /** Emptied slabs kept for the next ones, at most `spareSlabs`; the rest go to the garbage collector. */
  private readonly spare: Buffer[] = [];
  private allocated = 0;

  constructor(
    readonly slabBytes = 512 * 1024,
    private readonly spareSlabs = 8,
  ) {
    this.current = this.newSlab();
  }

  /**
   * The parts' UTF-8 one after the other, then the words': null when they might not fit in one slab (the caller
   * keeps such a profile as strings).
   */
  write(parts: readonly string[], words: string): ArenaRegion | null {
    let chars = words.length;
    for (let i = 0; i < parts.length; i++) chars += parts[i].length;
    // At most three UTF-8 bytes per UTF-16 code unit.
    const room = chars * 3;
    if (room > this.slabBytes) return null;
    if (this.current.at + room > this.slabBytes) {
      const full = this.current;
      this.current = this.newSlab();
      if (full.live === 0) this.recycle(full);
    }
    const slab = this.current;
    const start = slab.at;
    let at = start;
    for (let i = 0; i < parts.length; i++) at += slab.bytes.write(parts[i], at, 'utf8');
    const mid = at;
    at += slab.bytes.write(words, at, 'utf8');
    slab.at = at;
    slab.live++;
    return new ArenaRegion(this, slab, start, mid, at);
  }

  /** Slabs allocated so far: reused slabs keep it flat under a steady load. */
  get allocatedSlabs(): number {
    return this.allocated;
  }

  /** @internal ArenaRegion.release */
  released(slab: Slab): void {
    if (--slab.live > 0) return;
    if (slab === this.current) slab.at = 0;
    else this.recycle(slab);
  }

  private recycle(slab: Slab): void {
    if (this.spare.length < this.spareSlabs) this.spare.push(slab.bytes);
  }

  private newSlab(): Slab {
    const reused = this.spare.pop();
    if (!reused) this.allocated++;
    return { bytes: reused ?? Buffer.allocUnsafeSlow(this.slabBytes), at: 0, live: 0 };
  }
}

interface Slab {
  readonly bytes: Buffer;
  /** Where the next region starts. */
  at: number;
  /** Regions written and not yet released. */
  live: number;
}

/** One waiting profile's bytes: its JSON, then its words. Read until released, never after. */
export class ArenaRegion {
  private live = true;

  constructor(
    private readonly arena: ProfileArena,
    private readonly slab: Slab,
    private readonly start: number,
    private readonly mid: number,
    private readonly end: number,
  ) {}

  /** The JSON's bytes: a view of the slab, to be copied before the region is released. */
  json(): Buffer {
    return this.slab.bytes.subarray(this.start, this.check(this.mid));
  }

  jsonText(): string {
    return this.slab.bytes.toString('utf8', this.start, this.check(this.mid));
  }

  words(): string {
    return this.slab.bytes.toString('utf8', this.mid, this.check(this.end));
  }

  /** The store is done with it: its bytes may be written over. Releasing twice is releasing once. */
  release(): void {
    if (!this.live) return;
    this.live = false;
    this.arena.released(this.slab);
  }

  private check(offset: number): number {
    if (!this.live)
      throw new Error('A waiting profile was read after the store had written it: read it from the store');
    return offset;
  }
}
