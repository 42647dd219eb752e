import { ProfileCodec } from '../profile-codec.js';
import type {
  ProfileKind,
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSearchResult,
  ProfileSummary,
  RetentionPolicy,
} from '../profile-record.js';
import { ProfilerStorage } from '../profiler-storage.js';
import { PostgresConnection, type PostgresProfilerStorageOptions } from './postgres-connection.js';
import { PostgresProfileReader } from './postgres-profile-reader.js';
import { PostgresProfileWriter } from './postgres-profile-writer.js';
import { PostgresRetention } from './postgres-retention.js';
import { PostgresSchema } from './postgres-schema.js';
import { PostgresSearchPlanner } from './postgres-search-planner.js';
import { PostgresTables } from './postgres-tables.js';
import { PostgresTokenStore } from './postgres-token-store.js';
import { PostgresTextParts } from './postgres-text-parts.js';

export type { PostgresProfilerStorageOptions, PostgresStorageLogger } from './postgres-connection.js';

/**
 * The profile store for several instances: one PostgreSQL database every instance writes to and searches, so a
 * profile recorded behind a load balancer opens from any instance. Token uniqueness is the database's; tokens are
 * reserved before they are sent (`tokens`).
 */
export class PostgresProfilerStorage extends ProfilerStorage {
  readonly tokens: PostgresTokenStore;
  private readonly connection: PostgresConnection;
  private readonly tables: PostgresTables;
  private readonly codec = new ProfileCodec();
  private readonly schema: PostgresSchema;
  private readonly writer: PostgresProfileWriter;
  private readonly reader: PostgresProfileReader;
  private readonly planner: PostgresSearchPlanner;
  private readonly retention: PostgresRetention;

  constructor(options: PostgresProfilerStorageOptions) {
    super();
    this.connection = new PostgresConnection(options);
    const tables = new PostgresTables(this.connection.schema);
    this.tables = tables;
    this.schema = new PostgresSchema(tables, this.connection, options.trigramIndex !== false);
    this.tokens = new PostgresTokenStore(this.connection, tables);
    const textParts = new PostgresTextParts(tables);
    this.writer = new PostgresProfileWriter(this.connection, tables, this.tokens, this.codec, textParts);
    this.reader = new PostgresProfileReader(this.connection, tables, this.codec);
    this.planner = new PostgresSearchPlanner(this.connection, tables);
    this.retention = new PostgresRetention(this.connection, tables, this.tokens, textParts);
  }

  get connectionString(): string {
    return this.connection.connectionString;
  }

  get schemaName(): string {
    return this.connection.schema;
  }

  get description(): string {
    return this.connection.description;
  }

  /** Known after open(). */
  get trigramIndexed(): boolean {
    return this.schema.trigrams;
  }

  open(): Promise<void> {
    return this.connection.open((client) => this.schema.create(client));
  }

  write(profiles: readonly ProfileRecord[]): Promise<void> {
    return this.writer.write(profiles);
  }

  /** SQLSTATE classes 22 (data), 23 (integrity), 54 (limits); lost connections and timeouts are the store failing. */
  override isProfileError(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return error instanceof Error && typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
  }

  read(token: string): Promise<ProfileRecord | null> {
    return this.reader.read(token);
  }

  find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    return this.planner.find(criteria);
  }

  neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    return this.reader.neighbours(token, kinds);
  }

  redirectsFrom(token: string): Promise<ProfileSummary[]> {
    return this.reader.redirectsFrom(token);
  }

  prune(policy: RetentionPolicy): Promise<string[]> {
    return this.retention.prune(policy);
  }

  clear(): Promise<number> {
    return this.retention.clear();
  }

  async size(): Promise<number> {
    const { rows } = await this.connection.pool.query<{ bytes: number }>(
      `SELECT ((SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) AS t)
         + (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree(to_regclass($2))))::int8 AS bytes`,
      [[this.tables.profile, this.tables.data], this.tables.text],
    );
    return rows[0].bytes;
  }

  close(): Promise<void> {
    return this.connection.close((pool) => this.tokens.releaseOwn(pool));
  }
}
