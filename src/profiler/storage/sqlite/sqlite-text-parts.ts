import type { SqliteConnection } from './sqlite-connection.js';
import { keyRange, SEQ_BITS, yieldToEventLoop } from './sqlite-keys.js';
import { TEXT_DAY, textTable } from './sqlite-schema.js';

/** A kind's full-text table of a day. */
export interface TextPart {
  name: string;
  kind: number;
  day: number;
  /** SQL of its rowids matching an FTS5 query between two keys (parameters: query, from, to). */
  matching: string;
}

/**
 * The full-text index's tables, one per kind and day (profile_text_part lists them): a prune drops a day's tables
 * once none of its profiles is left, where deleting each profile's row from FTS5 would rewrite its segments. Until
 * then a pruned profile's row stays: every row at or below the floor (the newest key pruning has removed) is
 * checked against the profile table, those above are live.
 */
export class SqliteTextParts {
  constructor(private readonly connection: SqliteConnection) {}

  /**
   * In a write's transaction: indexes a profile's words under its key, in its kind's table of its day (made if
   * missing), replacing the row a pruned profile with the same key may have left there. `seen`: the tables the
   * transaction has already found or made.
   */
  insert(kind: number, time: number, id: bigint, words: string, floorKey: bigint, seen: Set<string>): void {
    const day = Math.floor(time / TEXT_DAY);
    const table = textTable(kind, day);
    if (!seen.has(table.name)) {
      const listed = this.connection.statement('SELECT 1 FROM profile_text_part WHERE kind = ? AND day = ?');
      if (listed.get(kind, day) === undefined) {
        this.connection.db.exec(table.create);
        this.connection.statement('INSERT INTO profile_text_part (kind, day) VALUES (?, ?)').run(kind, day);
      }
      seen.add(table.name);
    }
    if (id <= floorKey) this.connection.statement(`DELETE FROM ${table.name} WHERE rowid = ?`).run(id);
    this.connection.statement(`INSERT INTO ${table.name} (rowid, words) VALUES (?, ?)`).run(id, words);
  }

  /** The tables of these kinds (null: every kind) whose days meet the key range, the newest day first. */
  tables(kinds: readonly number[] | null, fromId: bigint, toId: bigint): TextPart[] {
    const [fromDay, toDay] = [fromId, toId].map((id) => Math.floor(Number(id >> SEQ_BITS) / TEXT_DAY));
    const parts = this.connection
      .statement('SELECT kind, day FROM profile_text_part WHERE day BETWEEN ? AND ? ORDER BY day DESC, kind')
      .all(fromDay, toDay) as { kind: number; day: number }[];
    return parts
      .filter((part) => kinds === null || kinds.includes(part.kind))
      .map((part) => {
        const name = textTable(part.kind, part.day).name;
        return { ...part, name, matching: `SELECT rowid FROM ${name} WHERE ${name} MATCH ? AND rowid BETWEEN ? AND ?` };
      });
  }

  /** The newest key pruning has removed (-1: none): a row at or below it may be a pruned profile's. */
  floorKey(): bigint {
    const floor = this.connection.statement('SELECT time FROM profile_text_floor').pluck().get() as number;
    return floor < 0 ? -1n : keyRange(floor, floor)[1];
  }

  /** Drops the tables of the days no profile is left of, one a turn of the event loop (each a few milliseconds). */
  async dropEmptyDays(): Promise<void> {
    const floorDay = Math.floor(Number(this.floorKey() >> SEQ_BITS) / TEXT_DAY);
    const candidates = this.connection
      .statement('SELECT kind, day FROM profile_text_part WHERE day <= ? ORDER BY day')
      .all(floorDay) as { kind: number; day: number }[];
    for (const { kind, day } of candidates) {
      if (!this.connection.isOpen) return;
      this.connection.db.transaction(() => {
        const [from, to] = keyRange(day * TEXT_DAY, (day + 1) * TEXT_DAY - 1);
        const left = this.connection
          .statement('SELECT 1 FROM profile WHERE id BETWEEN ? AND ? AND kind = ? LIMIT 1')
          .get(from, to, kind);
        if (left !== undefined) return;
        this.connection.db.exec(`DROP TABLE IF EXISTS ${textTable(kind, day).name}`);
        this.connection.statement('DELETE FROM profile_text_part WHERE kind = ? AND day = ?').run(kind, day);
      })();
      await yieldToEventLoop();
    }
  }

  /** In clear()'s transaction: every table dropped. */
  dropAll(): void {
    const parts = this.connection.statement('SELECT kind, day FROM profile_text_part').all() as {
      kind: number;
      day: number;
    }[];
    for (const { kind, day } of parts) this.connection.db.exec(`DROP TABLE IF EXISTS ${textTable(kind, day).name}`);
    this.connection.statement('DELETE FROM profile_text_part').run();
  }
}
