import { SkeletonMatcher } from '../url-skeleton.js';
import type { SqliteConnection } from './sqlite-connection.js';
import type { UrlMatch } from './sqlite-search-conditions.js';

/** A URL needle found in at most this many distinct URLs is searched through their ids. */
const URL_IDS_MAX = 1000;
/** A needle with digits whose skeletons leave more profiles than this to check URL by URL tries the trigrams first. */
const SKELETON_CHECK_MAX = 20_000;

/** Which distinct URLs a URL needle matches, through the URL skeletons or the trigram index (see match()). */
export class SqliteUrlMatcher {
  constructor(private readonly connection: SqliteConnection) {}

  /**
   * The URLs containing `needle`, exactly what LIKE '%needle%' matches, found the cheapest way:
   * - a needle without digits (nor '#') is in a URL exactly when it is in its skeleton: the matching skeletons,
   *   by LIKE over the few thousand of them;
   * - a needle with digits, through the skeletons: those containing the needle itself (digits kept in the host
   *   part) match whole, those that may hold it once their '#'s are digits are checked URL by URL
   *   (SkeletonMatcher), the others cannot match. When the URLs to check are many (`orders/42`: every order
   *   page may), the trigrams give the ids of its distinct URLs instead if at most URL_IDS_MAX have it;
   * - a needle with '#': its distinct URLs' ids through the trigrams if few, else LIKE over the distinct URLs.
   */
  match({ needle, like }: { needle: string; like: string }): UrlMatch {
    if (!needle.includes('#') && !/[0-9]/.test(needle)) {
      const rows = this.connection
        .statement(`SELECT id, n FROM profile_url_skeleton WHERE skeleton LIKE ? ESCAPE '\\'`)
        .raw()
        .all(like) as [number, number][];
      return {
        like,
        ids: null,
        skeletons: {
          all: rows.map((r) => r[0]),
          allProfiles: rows.reduce((sum, r) => sum + r[1], 0),
          check: [],
          checkProfiles: 0,
        },
      };
    }
    if (needle.includes('#')) return { like, ids: this.trigramIds(needle), skeletons: null };
    const matcher = new SkeletonMatcher(needle);
    const skeletons = { all: [] as number[], allProfiles: 0, check: [] as number[], checkProfiles: 0 };
    for (const [id, skeleton, n] of this.connection
      .statement('SELECT id, skeleton, n FROM profile_url_skeleton')
      .raw()
      .iterate() as IterableIterator<[number, string, number]>) {
      const match = matcher.match(skeleton);
      if (match === 'all') {
        skeletons.all.push(id);
        skeletons.allProfiles += n;
      } else if (match === 'some') {
        skeletons.check.push(id);
        skeletons.checkProfiles += n;
      }
    }
    if (skeletons.checkProfiles > SKELETON_CHECK_MAX) {
      const ids = this.trigramIds(needle);
      if (ids) return { like, ids, skeletons: null };
    }
    return { like, ids: null, skeletons };
  }

  /** The ids of the distinct URLs containing `needle` (3 characters or more), through the trigrams; null if more than URL_IDS_MAX. */
  private trigramIds(needle: string): number[] | null {
    if ([...needle].length < 3) return null;
    const found = this.connection
      .statement(
        `SELECT rowid FROM profile_url_trigram WHERE profile_url_trigram MATCH '"' || replace(lower(?), '"', '""') || '"' LIMIT ${URL_IDS_MAX + 1}`,
      )
      .pluck()
      .all(needle) as number[];
    return found.length <= URL_IDS_MAX ? found : null;
  }
}
