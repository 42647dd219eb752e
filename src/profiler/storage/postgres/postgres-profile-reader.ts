import type { ProfileCodec } from '../profile-codec.js';
import type { ProfileKind, ProfileRecord, ProfileSummary } from '../profile-record.js';
import { kindCodes } from '../search-helpers.js';
import type { PostgresConnection } from './postgres-connection.js';
import { COLUMNS, hasNul, kindCondition, type SummaryRow } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';

/** A profile by its token, and the profiles it links to: each one statement through an index. */
export class PostgresProfileReader {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
    private readonly codec: ProfileCodec,
  ) {}

  async read(token: string): Promise<ProfileRecord | null> {
    const pool = this.connection.pool;
    if (hasNul(token)) return null;
    const { rows } = await pool.query<SummaryRow & { data: Buffer }>(
      `SELECT ${COLUMNS}, d.data FROM ${this.tables.profile} p JOIN ${this.tables.data} d ON d.id = p.id WHERE p.token = $1`,
      [token],
    );
    if (rows.length === 0) return null;
    const { data, ...summary } = rows[0];
    const decoded = await this.codec.decode(data, async (key) => {
      const carrier = await pool.query<{ data: Buffer }>(`SELECT data FROM ${this.tables.data} WHERE id = $1`, [
        String(key),
      ]);
      return carrier.rows[0]?.data ?? null;
    });
    return decoded && { ...summary, data: decoded };
  }

  /** Along the time index from the profile's, the kind checked row by row. */
  async neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    const pool = this.connection.pool;
    const codes = kindCodes(kinds);
    if (hasNul(token) || codes?.length === 0) return { previous: null, next: null };
    const of = `(SELECT time, id FROM ${this.tables.profile} WHERE token = $1)`;
    const ofKind = codes === null ? '' : ` AND ${kindCondition(codes)}`;
    const [previous, next] = await Promise.all([
      pool.query<SummaryRow>(
        `SELECT ${COLUMNS} FROM ${this.tables.profile} p WHERE (p.time, p.id) < ${of}${ofKind} ORDER BY p.time DESC, p.id DESC LIMIT 1`,
        [token],
      ),
      pool.query<SummaryRow>(
        `SELECT ${COLUMNS} FROM ${this.tables.profile} p WHERE (p.time, p.id) > ${of}${ofKind} ORDER BY p.time, p.id LIMIT 1`,
        [token],
      ),
    ]);
    return { previous: previous.rows[0] ?? null, next: next.rows[0] ?? null };
  }

  /** Through the partial index of redirected_from. */
  async redirectsFrom(token: string): Promise<ProfileSummary[]> {
    const pool = this.connection.pool;
    if (hasNul(token)) return [];
    const { rows } = await pool.query<SummaryRow>(
      `SELECT ${COLUMNS} FROM ${this.tables.profile} p WHERE p.redirected_from = $1 ORDER BY p.time, p.id`,
      [token],
    );
    return rows;
  }
}
