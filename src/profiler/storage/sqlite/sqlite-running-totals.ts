import { HOUR } from '../search/hours.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { rangeCondition, totalsConditions, type Filters, type UrlMatch } from './sqlite-search-conditions.js';

/** What a written profile adds to the running totals. */
export interface TotalsRow {
  time: number;
  kind: number;
  /** In upper case, as the totals keep it. */
  method: string;
  status: number;
  ip: string;
  urlId: number;
  skeleton: number;
  token: string;
}

/**
 * The running totals, so that counting the matches of the common searches never walks a million index entries:
 * per hour × kind × method × status (`profile_count`), per IP × kind × method × status (`profile_ip_count`), per
 * distinct URL and per URL skeleton × method × status (`profile_url_count`, `profile_url_skeleton_count`), per
 * first two characters of the token (`profile_token_count`), and each skeleton's number of profiles. A write adds
 * to them in its transaction (add()); a prune chunk lowers them (PRUNE_CHUNK_SQL).
 */
export class SqliteRunningTotals {
  constructor(private readonly connection: SqliteConnection) {}

  /** Adds a batch's profiles, inside the write's transaction: one statement per distinct key of each table. */
  add(rows: readonly TotalsRow[]): void {
    const hours = new Counter();
    const ips = new Counter();
    const urls = new Counter();
    const skeletonsBy = new Counter();
    const skeletons = new Counter();
    // Per first two characters of the token, written in one statement: a batch's random tokens have nearly as
    // many prefixes as profiles.
    const prefixes: Record<string, number> = Object.create(null);
    for (const row of rows) {
      hours.add([Math.floor(row.time / HOUR), row.kind, row.method, row.status]);
      ips.add([row.ip, row.kind, row.method, row.status]);
      urls.add([row.urlId, row.method, row.status]);
      skeletonsBy.add([row.skeleton, row.method, row.status]);
      skeletons.add([row.skeleton]);
      const prefix = [...row.token].slice(0, 2).join('');
      prefixes[prefix] = (prefixes[prefix] ?? 0) + 1;
    }
    const totals: [string, string, Counter][] = [
      ['profile_count', 'hour, kind', hours],
      ['profile_ip_count', 'ip, kind', ips],
      ['profile_url_count', 'url_id', urls],
      ['profile_url_skeleton_count', 'skel_id', skeletonsBy],
    ];
    for (const [table, columns, counter] of totals) {
      const keys = `${columns}, method, status`;
      const add = this.connection.statement(
        `INSERT INTO ${table} (${keys}, n) VALUES (${keys
          .split(',')
          .map(() => '?')
          .join(', ')}, ?) ON CONFLICT (${keys}) DO UPDATE SET n = n + excluded.n`,
      );
      for (const [key, n] of counter) add.run(...key, n);
    }
    this.connection
      .statement(
        'INSERT INTO profile_token_count (prefix, n) SELECT key, value FROM json_each(?) WHERE true ON CONFLICT (prefix) DO UPDATE SET n = n + excluded.n',
      )
      .run(JSON.stringify(prefixes));
    const count = this.connection.statement('UPDATE profile_url_skeleton SET n = n + ? WHERE id = ?');
    for (const [[skeleton], n] of skeletons) count.run(n, skeleton);
  }

  /** Every stored profile. */
  total(): number {
    return this.sum('SELECT coalesce(sum(n), 0) FROM profile_count');
  }

  /** The profiles of the whole hours `firstHour` … `lastHour` matching the method, status and kinds. */
  hours(f: Filters, firstHour: number, lastHour: number): number {
    const [also, more] = totalsConditions(f, '', true);
    return this.sum(
      `SELECT coalesce(sum(n), 0) FROM profile_count WHERE hour BETWEEN ? AND ? AND ${also}`,
      firstHour,
      lastHour,
      ...more,
    );
  }

  /** The profiles of the IP prefix; with `f`, of its method, status and kinds too. */
  ip(ip: [string, string | null], f?: Filters): number {
    const [sql, params] = rangeCondition('ip', ip);
    const [also, more] = f ? totalsConditions(f, '', true) : ['1', []];
    return this.sum(`SELECT coalesce(sum(n), 0) FROM profile_ip_count WHERE ${sql} AND ${also}`, ...params, ...more);
  }

  /** The profiles whose token starts with a prefix of one or two characters. */
  tokenPrefix(token: [string, string | null]): number {
    const [sql, params] = rangeCondition('prefix', token);
    return this.sum(`SELECT coalesce(sum(n), 0) FROM profile_token_count WHERE ${sql}`, ...params);
  }

  /** The profiles of the distinct URLs `ids`. */
  urlIds(ids: number[]): number {
    return this.sum(
      'SELECT coalesce(sum(n), 0) FROM profile_url WHERE id IN (SELECT value FROM json_each(?))',
      JSON.stringify(ids),
    );
  }

  /** The profiles whose URL matches, whatever else. */
  url(url: UrlMatch): number {
    if (url.skeletons) {
      const { allProfiles, check } = url.skeletons;
      if (check.length === 0) return allProfiles;
      return (
        allProfiles +
        this.sum(
          `SELECT coalesce(sum(n), 0) FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?)) AND url LIKE ? ESCAPE '\\'`,
          JSON.stringify(check),
          url.like,
        )
      );
    }
    return url.ids
      ? this.urlIds(url.ids)
      : this.sum(`SELECT coalesce(sum(n), 0) FROM profile_url WHERE url LIKE ? ESCAPE '\\'`, url.like);
  }

  /** Matches of a URL needle with a method and/or a status, from the totals per skeleton and per distinct URL. */
  urlWithStatus(url: UrlMatch, f: Filters): number {
    const [also, more] = totalsConditions(f, '');
    const [joined, joinedMore] = totalsConditions(f, 'c.');
    const byUrl = (where: string, ...params: unknown[]) =>
      this.sum(
        `SELECT coalesce(sum(c.n), 0) FROM profile_url u CROSS JOIN profile_url_count c ON c.url_id = u.id WHERE ${where} AND ${joined}`,
        ...params,
        ...joinedMore,
      );
    if (url.skeletons) {
      const { all, check } = url.skeletons;
      let n = 0;
      if (all.length > 0) {
        n += this.sum(
          `SELECT coalesce(sum(n), 0) FROM profile_url_skeleton_count WHERE skel_id IN (SELECT value FROM json_each(?)) AND ${also}`,
          JSON.stringify(all),
          ...more,
        );
      }
      if (check.length > 0)
        n += byUrl(
          `u.skel_id IN (SELECT value FROM json_each(?)) AND u.url LIKE ? ESCAPE '\\'`,
          JSON.stringify(check),
          url.like,
        );
      return n;
    }
    if (url.ids)
      return this.sum(
        `SELECT coalesce(sum(n), 0) FROM profile_url_count WHERE url_id IN (SELECT value FROM json_each(?)) AND ${also}`,
        JSON.stringify(url.ids),
        ...more,
      );
    return byUrl(`u.url LIKE ? ESCAPE '\\'`, url.like);
  }

  private sum(sql: string, ...params: unknown[]): number {
    return this.connection
      .statement(sql)
      .pluck()
      .get(...params) as number;
  }
}

/** Counts by a composite key (kept as the tuple it was first seen with). */
export class Counter implements Iterable<[(string | number)[], number]> {
  private readonly counts = new Map<string, [(string | number)[], number]>();

  add(key: (string | number)[], n = 1): void {
    const id = key.join('\u0000');
    const entry = this.counts.get(id);
    if (entry) entry[1] += n;
    else this.counts.set(id, [key, n]);
  }

  [Symbol.iterator](): Iterator<[(string | number)[], number]> {
    return this.counts.values();
  }
}
