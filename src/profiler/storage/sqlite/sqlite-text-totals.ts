import { HOUR, splitByHours } from '../search/hours.js';
import type { SearchTerm } from '../search/search-words.js';
import {
  matchesWords,
  MAX_TRACKED_QUERIES,
  termsOfKey,
  trustedFrom,
  type TextTotalsRow,
} from '../search/tracked-queries.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { ftsQuery } from './sqlite-fts-query.js';
import { MAX_ID } from './sqlite-keys.js';
import { Counter } from './sqlite-running-totals.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';
import { totalsConditions, type Filters } from './sqlite-search-conditions.js';

/** Profiles read by one chunk of a tracked query's first count (a few tens of milliseconds). */
const FILL_CHUNK = 20_000;

/**
 * The running totals of the tracked full-text queries (tracked-queries.ts): added to by every write, in its
 * transaction (add); a newly tracked query's older matches counted in the background, a chunk per turn of the
 * event loop, the profiles written since being the writes' (pending_seq); read by count() once complete. Pruning
 * only moves the floor (PRUNE_CHUNK_SQL): the hours it reached are counted row by row.
 */
export class SqliteTextTotals {
  private filling = false;
  private readonly parsed = new Map<string, SearchTerm[]>();

  constructor(
    private readonly connection: SqliteConnection,
    private readonly parts: SqliteTextParts,
  ) {}

  /** Inside the write's transaction: each tracked query's matches among the batch's profiles. */
  add(rows: readonly TextTotalsRow[]): void {
    if (rows.length === 0) return;
    const queries = this.connection.statement('SELECT id, query FROM profile_text_query').all() as {
      id: number;
      query: string;
    }[];
    if (queries.length === 0) return;
    const counts = new Counter();
    const words = rows.map((row) => new Set(row.words));
    for (const { id, query } of queries) {
      const terms = this.termsOf(query);
      for (const [i, row] of rows.entries()) {
        if (matchesWords(terms, words[i]))
          counts.add([id, Math.floor(row.time / HOUR), row.kind, row.method, row.status]);
      }
    }
    const add = this.connection.statement(
      `INSERT INTO profile_text_count (query_id, hour, kind, method, status, n) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (query_id, hour, kind, method, status) DO UPDATE SET n = n + excluded.n`,
    );
    for (const [key, n] of counts) add.run(...key, n);
  }

  /** The tracked query of this key: its id, and whether its totals are complete; null when not tracked. */
  state(key: string): { id: number; ready: boolean } | null {
    const row = this.connection
      .statement('SELECT id, pending_seq IS NULL AS ready FROM profile_text_query WHERE query = ?')
      .get(key) as { id: number; ready: number } | undefined;
    return row ? { id: row.id, ready: row.ready === 1 } : null;
  }

  /**
   * Tracks a query: from now on every write counts its matches, and its older ones are counted in the background;
   * the oldest tracked query makes room when MAX_TRACKED_QUERIES are.
   */
  track(key: string): void {
    this.connection.db
      .transaction(() => {
        if (this.state(key)) return;
        const tracked = this.connection.statement('SELECT count(*) FROM profile_text_query').pluck().get() as number;
        if (tracked >= MAX_TRACKED_QUERIES) {
          const oldest = this.connection.statement('SELECT min(id) FROM profile_text_query').pluck().get() as number;
          this.connection.statement('DELETE FROM profile_text_count WHERE query_id = ?').run(oldest);
          this.connection.statement('DELETE FROM profile_text_query WHERE id = ?').run(oldest);
        }
        this.connection
          .statement(
            'INSERT INTO profile_text_query (query, pending_seq, pending_key) VALUES (?, (SELECT last FROM profile_write), ?)',
          )
          .run(key, MAX_ID);
      })
      .immediate();
    this.fill();
  }

  /**
   * The matches of a complete tracked query with the filters' kinds, method, status and time: from the totals for
   * the whole hours the floor leaves trusted, and `countRows` (between two times) for the rest.
   */
  count(id: number, f: Filters, countRows: (from: number, to: number) => number): number {
    // One read transaction: a prune chunk of the worker's commits before or after it, not in between.
    return this.connection.db.transaction(() => {
      const floor = this.connection.statement('SELECT time FROM profile_text_floor').pluck().get() as number;
      const trusted = trustedFrom(floor, HOUR);
      let n = f.fromTime < trusted ? countRows(f.fromTime, Math.min(f.toTime, trusted - 1)) : 0;
      const from = Math.max(f.fromTime, trusted);
      if (from > f.toTime) return n;
      const { hours, partial } = splitByHours(from, f.toTime);
      if (hours) {
        const [also, params] = totalsConditions(f, '', true);
        n += this.connection
          .statement(
            `SELECT coalesce(sum(n), 0) FROM profile_text_count WHERE query_id = ? AND hour BETWEEN ? AND ? AND ${also}`,
          )
          .pluck()
          .get(id, hours[0], hours[1], ...params) as number;
      }
      for (const [a, b] of partial) n += countRows(a, b);
      return n;
    })();
  }

  private termsOf(key: string): SearchTerm[] {
    let terms = this.parsed.get(key);
    if (!terms) {
      if (this.parsed.size >= 4 * MAX_TRACKED_QUERIES) this.parsed.clear();
      terms = termsOfKey(key);
      this.parsed.set(key, terms);
    }
    return terms;
  }

  /** Goes on counting a pending query's older matches (a busy store may have stopped it). */
  resume(): void {
    this.fill();
  }

  /** Counts the pending queries' older matches, a chunk per turn of the event loop, until none is left. */
  private fill(): void {
    if (this.filling) return;
    this.filling = true;
    const step = () => {
      let more = false;
      try {
        more = this.connection.isOpen && this.fillChunk();
      } catch {
        // A store busy or closing: the next query's search starts again where this one stopped.
      }
      if (more) setImmediate(step);
      else this.filling = false;
    };
    setImmediate(step);
  }

  /** One chunk of a pending query: its matches among the next FILL_CHUNK older keys written before it was tracked. */
  private fillChunk(): boolean {
    const pending = this.connection
      .statement(
        'SELECT id, query, pending_seq AS seq, pending_key AS key FROM profile_text_query WHERE pending_seq IS NOT NULL ORDER BY id LIMIT 1',
      )
      .safeIntegers(true)
      .get() as { id: bigint; query: string; seq: bigint; key: bigint } | undefined;
    if (!pending) return false;
    this.connection.db
      .transaction(() => {
        const low = this.connection
          .statement('SELECT id FROM profile WHERE id <= ? ORDER BY id DESC LIMIT 1 OFFSET ?')
          .safeIntegers(true)
          .pluck()
          .get(pending.key, FILL_CHUNK) as bigint | undefined;
        const from = low ?? 0n;
        const match = ftsQuery(this.termsOf(pending.query));
        // The join checks every row: a row a pruned profile left matches no profile.
        const parts = this.parts.tables(null, from, pending.key);
        if (parts.length > 0) {
          const ids = parts.map((p) => p.matching).join(' UNION ALL ');
          this.connection
            .statement(
              `INSERT INTO profile_text_count (query_id, hour, kind, method, status, n)
               SELECT ?, p.time / ${HOUR}, p.kind, upper(p.method), p.status, count(*) FROM profile p
               WHERE p.id IN (${ids}) AND p.seq <= ? GROUP BY 2, 3, 4, 5
               ON CONFLICT (query_id, hour, kind, method, status) DO UPDATE SET n = n + excluded.n`,
            )
            .run(pending.id, ...parts.flatMap(() => [match, from, pending.key]), pending.seq);
        }
        if (low === undefined) {
          this.connection
            .statement('UPDATE profile_text_query SET pending_seq = NULL, pending_key = NULL WHERE id = ?')
            .run(pending.id);
        } else {
          this.connection
            .statement('UPDATE profile_text_query SET pending_key = ? WHERE id = ?')
            .run(from - 1n, pending.id);
        }
      })
      .immediate();
    return true;
  }
}
