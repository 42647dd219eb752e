import type { SqliteConnection } from './sqlite-connection.js';
import type { UrlMatch } from './sqlite-search-conditions.js';

const URL_IDS_MAX = 10_000;

export class SqliteUrlMatcher {
  constructor(private readonly connection: SqliteConnection) {}

  /** In more than URL_IDS_MAX distinct URLs a needle is common: a walk of the newest profiles finds it soon. */
  match({ needle, like }: { needle: string; like: string }): UrlMatch {
    const sql =
      [...needle].length >= 3
        ? `SELECT rowid FROM profile_url_trigram WHERE profile_url_trigram MATCH '"' || replace(lower(?), '"', '""') || '"'`
        : `SELECT id FROM profile_url WHERE url LIKE ? ESCAPE '\\'`;
    const found = this.connection
      .statement(`${sql} LIMIT ${URL_IDS_MAX + 1}`)
      .pluck()
      .all([...needle].length >= 3 ? needle : like) as number[];
    return { like, ids: found.length <= URL_IDS_MAX ? found : null };
  }
}
