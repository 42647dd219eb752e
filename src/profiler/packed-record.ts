import { jsonParts } from './storage/profile-codec.js';
import type { ProfileRecord } from './storage/profile-record.js';
import { remembered } from '../lifecycle/remembered.js';
import { indexWords, MAX_WORDS } from './storage/search/search-words.js';

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
  const words = wordsOf(record.text ?? []).join(' ');
  const { data: _data, text: _text, ...summary } = record;
  let data: Record<string, unknown> | undefined;
  return Object.defineProperties(summary as ProfileRecord, {
    data: { get: () => (data ??= JSON.parse(json) as Record<string, unknown>), enumerable: true },
    json: { value: json },
    words: { value: words },
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
