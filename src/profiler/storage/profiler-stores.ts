import type { TokenStore } from '../tokens/token-store.js';
import type { ProfilerStorage } from './profiler-storage.js';

/** What one PROFILER_DSN opens; `shared` (other instances write there too) decides the token allocator. */
export class ProfilerStores {
  constructor(
    readonly storage: ProfilerStorage,
    readonly tokens: TokenStore,
    readonly shared: boolean,
  ) {}
}
