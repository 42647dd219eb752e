import type { ProfileCodec } from '../profile-codec.js';
import type { ProfileKind, ProfileRecord, ProfileSummary } from '../profile-record.js';
import { kindCodes } from '../search-helpers.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { BY_TOKEN, COLUMNS, FROM, ID_OF_TOKEN, type SummaryRow } from './sqlite-keys.js';

/** A profile by its token, and the profiles it links to: each one statement through a key or an index. */
export class SqliteProfileReader {
  constructor(
    private readonly connection: SqliteConnection,
    private readonly codec: ProfileCodec,
  ) {}

  async read(token: string): Promise<ProfileRecord | null> {
    const row = this.connection
      .statement(
        `SELECT ${COLUMNS}, d.data FROM ${BY_TOKEN} CROSS JOIN profile_url u ON u.id = p.url_id CROSS JOIN profile_data d ON d.id = p.id WHERE t.token = ?`,
      )
      .get(token) as (SummaryRow & { data: Buffer }) | undefined;
    if (!row) return null;
    const { data, ...summary } = row;
    const carrier = this.connection.statement('SELECT data FROM profile_data WHERE id = ?').pluck();
    const decoded = await this.codec.decode(data, (key) => (carrier.get(key) as Buffer | undefined) ?? null);
    return decoded && { ...summary, data: decoded };
  }

  /** Along the key from the profile's, the kind checked row by row (the next of another kind is seldom far). */
  neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): { previous: ProfileSummary | null; next: ProfileSummary | null } {
    const codes = kindCodes(kinds);
    if (codes?.length === 0) return { previous: null, next: null };
    // The codes are integers of KIND_CODES, written into the text: at most seven statements, each planned once.
    const ofKind = codes === null ? '' : ` AND +p.kind IN (${codes.join(', ')})`;
    const previous = this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id < ${ID_OF_TOKEN}${ofKind} ORDER BY p.id DESC LIMIT 1`)
      .get(token);
    const next = this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id > ${ID_OF_TOKEN}${ofKind} ORDER BY p.id LIMIT 1`)
      .get(token);
    return { previous: (previous as SummaryRow | undefined) ?? null, next: (next as SummaryRow | undefined) ?? null };
  }

  /** Through the partial index of redirected_from. */
  redirectsFrom(token: string): ProfileSummary[] {
    return this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.redirected_from = ? ORDER BY p.id`)
      .all(token) as SummaryRow[];
  }
}
