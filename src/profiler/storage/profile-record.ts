/** An asset is a response typed image, font, stylesheet or script; the list hides the last two kinds unless asked. */
export type ProfileKind = 'application' | 'profiler' | 'asset';

export const PROFILE_KINDS: readonly ProfileKind[] = ['application', 'profiler', 'asset'];

/** The columns of the profile list, indexed by every store. */
export interface ProfileSummary {
  /** 6 lowercase hexadecimal characters, unique in the store. */
  token: string;
  /** Always null (the kernel makes no sub-requests), kept for the stored format and the JSON, as in Symfony's. */
  parent: string | null;
  /** Trusted-proxy aware. */
  ip: string;
  method: string;
  /** Absolute. */
  url: string;
  /** When the request entered the kernel, milliseconds since the epoch. */
  time: number;
  statusCode: number;
  kind: ProfileKind;
  /** Milliseconds in the kernel (null: a profile of an older version). */
  duration: number | null;
  route: string | null;
  /** Token of the redirect this request followed, for the link both ways. */
  redirectedFrom: string | null;
}

export interface ProfileRecord extends ProfileSummary {
  data: Record<string, unknown>;
  /** What full-text search finds it by, redacted as the data is; indexed, not kept: read() does not return it. */
  text?: string[];
  /** A record waiting to be written (packedRecord): its JSON, its words, and `release()` once the store is done. */
  readonly json?: string | Buffer;
  readonly words?: string;
  readonly release?: () => void;
}

export interface ProfileSearchCriteria {
  /** A prefix (`192.168.`). */
  ip?: string;
  /** Exact, case-insensitive. */
  method?: string;
  /** A whole status code (`404`) or a prefix of one (`4` = 4xx, `40` = 400–409). */
  statusCode?: string;
  /** A substring, case-insensitive for ASCII letters only (as SQL LIKE). */
  url?: string;
  /** A prefix. */
  token?: string;
  /** Words of ProfileRecord.text, every one required, any order; `word*` a prefix. */
  text?: string;
  /** Milliseconds since the epoch, both inclusive. */
  start?: number;
  end?: number;
  /** undefined: every kind; empty: none. */
  kinds?: readonly ProfileKind[];
  limit: number;
}

export interface ProfileSearchResult {
  /** Counted up to COUNT_CAP + 1 only: "more than COUNT_CAP" is all a person needs of a larger count. */
  total: number;
  /** The count stopped at what a store reads for one (filters common alone, rare together): more may match. */
  atLeast?: boolean;
  /** Newest first (ties: the later written first). */
  rows: ProfileSummary[];
}

export interface RetentionPolicy {
  /** 0: no limit. */
  maxProfiles: number;
  /** 0: no limit. */
  maxAgeMs: number;
  now: number;
}
