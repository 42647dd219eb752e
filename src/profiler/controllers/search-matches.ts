import type { SearchedText } from '../profile-texts.js';
import { indexWords, matchesWords, type SearchTerm } from '../storage/search/search-words.js';

/** Where a full-text query matched a profile: the panel, and the text around the words with those words marked. */
export interface MatchExcerpt {
  panel: string;
  label: string;
  parts: { text: string; mark: boolean }[];
}

const WORD = /[\p{L}\p{N}_]+/gu;
/** Characters shown before the first marked word, and in all. */
const LEAD = 50;
const LENGTH = 180;

/**
 * The text of a profile that holds the most of the query's terms (every one, usually), cut to a line around its
 * first match, the matching words marked; null when none holds any (a profile stored before its text was indexed).
 */
export function matchExcerpt(texts: readonly SearchedText[], terms: readonly SearchTerm[]): MatchExcerpt | null {
  let best: { text: SearchedText; score: number } | null = null;
  for (const text of texts) {
    const words = new Set(indexWords([text.text]));
    const score = terms.filter((term) => matchesWords([term], words)).length;
    if (score > (best?.score ?? 0)) best = { text, score };
    if (score === terms.length) break;
  }
  if (!best) return null;
  const { panel, label, text } = best.text;
  const marks: [number, number][] = [];
  for (const match of text.matchAll(WORD)) {
    if (terms.some((term) => matchesWords([term], new Set(indexWords([match[0]])))))
      marks.push([match.index, match.index + match[0].length]);
  }
  // A short text whole; a long one from a little before its first match.
  const start =
    text.length <= LENGTH || marks.length === 0 || marks[0][0] <= LEAD ? 0 : wordStart(text, marks[0][0] - LEAD);
  const end = Math.min(text.length, start + LENGTH);
  const parts: MatchExcerpt['parts'] = [];
  let at = start;
  for (const [a, b] of marks) {
    if (a < at || b > end) continue;
    if (a > at) parts.push({ text: text.slice(at, a), mark: false });
    parts.push({ text: text.slice(a, b), mark: true });
    at = b;
  }
  if (at < end) parts.push({ text: text.slice(at, end), mark: false });
  if (start > 0) parts.unshift({ text: '…', mark: false });
  if (end < text.length) parts.push({ text: '…', mark: false });
  return { panel, label, parts };
}

/** The start of the word `index` falls in, or the next one: an excerpt does not begin in the middle of a word. */
function wordStart(text: string, index: number): number {
  const next = text.slice(index).search(/[^\p{L}\p{N}_]/u);
  return next < 0 ? index : index + next + 1;
}
