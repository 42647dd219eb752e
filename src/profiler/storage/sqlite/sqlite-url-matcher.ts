import type { SqliteConnection } from './sqlite-connection.js';
import type { UrlMatch } from './sqlite-search-conditions.js';

/** A URL needle found in at most this many distinct URLs is searched through their ids, else URL by URL. */
const URL_IDS_MAX = 10_000;

/** Which distinct URLs a URL needle matches: what LIKE '%needle%' matches, through the trigram index when it can. */
export class SqliteUrlMatcher {
  constructor(private readonly connection: SqliteConnection) {}

  /**
   * The ids of the distinct URLs containing the needle, when at most URL_IDS_MAX: through the trigrams for a needle
   * of three characters or more, else by LIKE over the distinct URLs. A needle in more URLs is common: a search
   * walking the newest profiles finds its matches soon, checking each URL.
   */
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
