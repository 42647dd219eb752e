/**
 * What a request was, for the request list: the application's own (pages, API, errors), one of the profiler's pages,
 * or a static asset (a response whose type is an image, font, stylesheet or script). The list leaves the last two
 * out unless asked.
 */
export type ProfileKind = 'application' | 'profiler' | 'asset';

export const PROFILE_KINDS: readonly ProfileKind[] = ['application', 'profiler', 'asset'];

/** The columns of the profile list (the search page's row), indexed by every storage. */
export interface ProfileSummary {
  /** Exactly 6 lowercase hexadecimal characters, unique in the store. */
  token: string;
  /**
   * A parent request's token, as in Symfony's profile index: always null here (the kernel makes no sub-requests),
   * kept in the stored format and the JSON.
   */
  parent: string | null;
  /** Client IP (trusted-proxy aware). */
  ip: string;
  method: string;
  /** Absolute URL of the request. */
  url: string;
  /** When the request entered the kernel, milliseconds since the epoch. */
  time: number;
  statusCode: number;
  kind: ProfileKind;
  /** The request's time in the kernel, milliseconds (null: not measured, a profile of an older version). */
  duration: number | null;
  /** The route that matched (null: none). */
  route: string | null;
  /** Token of the redirect response this request followed (null: none), for the link both ways. */
  redirectedFrom: string | null;
}

/** A whole profile as stored: its list columns and each collector's data (plain JSON values), by collector name. */
export interface ProfileRecord extends ProfileSummary {
  data: Record<string, unknown>;
  /**
   * What a full-text search finds the profile by (log messages, exceptions, SQL, route and controller, trace id;
   * each collector's searchText()), redacted as the data is. Written to the store's full-text index, not kept
   * with the profile: read() does not return it.
   */
  text?: string[];
}

export interface ProfileSearchCriteria {
  /** IP prefix (`192.168.` matches every address in that range). */
  ip?: string;
  /** Exact method, case-insensitive. */
  method?: string;
  /** A whole status code (`404`) or a prefix of one (`4` = 4xx, `40` = 400–409). */
  statusCode?: string;
  /** Substring of the absolute URL, case-insensitive (ASCII letters; other characters match exactly, as SQL LIKE). */
  url?: string;
  /** Token prefix. */
  token?: string;
  /**
   * Words of the profile's text (ProfileRecord.text), every one required, in any order; `word*` a prefix
   * (search-words.ts). A query of punctuation only matches nothing.
   */
  text?: string;
  /** Time range, milliseconds since the epoch, both inclusive. */
  start?: number;
  end?: number;
  /** Only profiles of these kinds (undefined: every kind; empty: none). */
  kinds?: readonly ProfileKind[];
  /** Rows to return, newest first. */
  limit: number;
}

export interface ProfileSearchResult {
  /**
   * Number of profiles matching the criteria, not capped by the limit but counted up to COUNT_CAP + 1 only: a
   * count reads at most that many matches, and "10,000+" is all a person needs of a larger one.
   */
  total: number;
  /**
   * The count stopped at what a store reads for one (filters common alone, rare together): `total` matches were
   * found, more may exist. Absent: `total` is exact (up to the cap).
   */
  atLeast?: boolean;
  /** At most `limit` of them, newest first (ties: the later written first). */
  rows: ProfileSummary[];
}

export interface RetentionPolicy {
  /** Keep at most this many profiles, the newest (0: no limit). */
  maxProfiles: number;
  /** Drop profiles older than this many milliseconds before `now` (0: no limit). */
  maxAgeMs: number;
  now: number;
}
