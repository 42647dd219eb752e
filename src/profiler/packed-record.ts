import { jsonParts } from './storage/profile-codec.js';
import type { ProfileRecord } from './storage/profile-record.js';
import { indexWords } from './storage/search/search-words.js';

/**
 * A completed profile as it waits for the store: its data as the JSON the store writes, one flat string, and its
 * texts as the words full-text search indexes. The request's collected objects then die young, instead of being
 * copied by each scavenge and promoted while their batch fills (BENCHMARKS.md). `data` parses the JSON once it is
 * read (the toolbar, a page opened at once): what the store will return.
 */
export function packedRecord(record: ProfileRecord): ProfileRecord {
  const parts = jsonParts(record.data);
  // One flat string: one object for a scavenge to copy, no pointer for a mark-compact to follow.
  const json = parts.length === 1 ? parts[0] : parts.join('');
  const words = indexWords(record.text ?? []).join(' ');
  const { data: _data, text: _text, ...summary } = record;
  let data: Record<string, unknown> | undefined;
  return Object.defineProperties(summary as ProfileRecord, {
    data: { get: () => (data ??= JSON.parse(json) as Record<string, unknown>), enumerable: true },
    json: { value: json },
    words: { value: words },
  });
}
