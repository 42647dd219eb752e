import { jsonParts } from './storage/profile-codec.js';
import { ProfileArena } from './profile-arena.js';
import type { ProfileRecord } from './storage/profile-record.js';
import { remembered } from '../lifecycle/remembered.js';
import { indexWords, MAX_WORDS } from './storage/search/search-words.js';

/** The process's waiting profiles. */
const ARENA = new ProfileArena();

/**
 * A completed profile as it waits for the store: its data as the JSON the store writes, and its texts as the words
 * full-text search indexes, both as UTF-8 in the arena (as strings when too large for it). The request's collected
 * objects then die young, and so do the strings that carry them here, instead of being copied by each scavenge
 * and promoted while their batch fills (BENCHMARKS.md). `data` parses the JSON once it is read (the toolbar, a page
 * opened at once): what the store will return. The store's write buffer calls `release()` once it is done with it.
 */
export function packedRecord(record: ProfileRecord, arena: ProfileArena = ARENA): ProfileRecord {
  const parts = jsonParts(record.data);
  const words = wordsOf(record.text ?? []).join(' ');
  const region = arena.write(parts, words);
  const { data: _data, text: _text, ...summary } = record;
  let data: Record<string, unknown> | undefined;
  if (!region) {
    const json = parts.length === 1 ? parts[0] : parts.join('');
    return Object.defineProperties(summary as ProfileRecord, {
      data: { get: () => (data ??= JSON.parse(json) as Record<string, unknown>), enumerable: true },
      json: { value: json },
      words: { value: words },
    });
  }
  return Object.defineProperties(summary as ProfileRecord, {
    data: { get: () => (data ??= JSON.parse(region.jsonText()) as Record<string, unknown>), enumerable: true },
    json: { get: () => region.json() },
    words: { get: () => region.words() },
    release: { value: () => region.release() },
  });
}

/** Each short text's words: the same route names, log lines and SQL come back in every request. */
const WORDS = new Map<string, readonly string[]>();
const WORDS_KEPT = 1024;
const SHORT_TEXT = 2048;

/** indexWords(texts), from each text's words found once. */
function wordsOf(texts: readonly string[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    const own =
      text.length > SHORT_TEXT ? indexWords([text]) : remembered(WORDS, text, (t) => indexWords([t]), WORDS_KEPT);
    for (const word of own) {
      words.add(word);
      if (words.size >= MAX_WORDS) return [...words];
    }
  }
  return [...words];
}
