import type { TokenStore } from '../tokens/token-store.js';
import type { ProfilerStorage } from './profiler-storage.js';

/**
 * What one PROFILER_DSN opens: the profile store, the token queries on the same database, and whether other
 * instances write there too (PostgreSQL), which decides the token allocator. The DI token the ProfilerModule
 * provides the two ports from.
 */
export class ProfilerStores {
  constructor(
    readonly storage: ProfilerStorage,
    readonly tokens: TokenStore,
    readonly shared: boolean,
  ) {}
}
