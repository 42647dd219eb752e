import { MASK, maskSecretValues } from './secret-values.js';

/**
 * Rounds of percent-decoding a part of a URL gets before it is judged; a part still encoded after them is masked
 * whole, so that encoding a secret once more than this never shows it.
 */
const DECODING_ROUNDS = 8;
const PERCENT_RUN = /(?:%[0-9a-f]{2})+/gi;
const STILL_ENCODED = /%[0-9a-f]{2}/i;
/** A name inside decoded text: after a start, `?`, `&`, `;` or `#`, up to its `=`. */
const NAME = /(?:^|[?&;#])([^?&;#=]*)=/g;
/** What a masked part keeps unencoded besides letters and digits: readable, and no separator of its place. */
const KEPT_IN_PATH = /[^\w\-.~!$()*,;:@/=[\]]/gu;
const KEPT_IN_QUERY = /[^\w\-.~!$()*,;:@/?=[\]]/gu;

/**
 * `url` with every secret masked, judged on its decoded form (percent-encoding undone repeatedly, `+` as a space):
 * the password of `user:password@` (in the URL or nested in a parameter), the value of any parameter whose name
 * `secretName` names a secret (in the query, the fragment, a `;` pair, or a URL or query nested in a value, whatever
 * quotes or brackets the name holds), and values shaped like keys and tokens (`Bearer …`, `ghp_…`, JWTs). The URL is
 * cut where a parser cuts it (path, `&`-separated pairs, fragment); a part without secrets is kept byte for byte, a
 * part with one is shown decoded and masked, with its separators encoded.
 */
export function maskUrl(url: string, secretName: (name: string) => boolean): string {
  const hash = url.indexOf('#');
  const beforeFragment = hash === -1 ? url : url.slice(0, hash);
  const question = beforeFragment.indexOf('?');
  let masked = maskPart(question === -1 ? beforeFragment : beforeFragment.slice(0, question), secretName, KEPT_IN_PATH);
  if (question !== -1) masked += `?${maskPairList(beforeFragment.slice(question + 1), secretName)}`;
  if (hash !== -1) masked += `#${maskPairList(url.slice(hash + 1), secretName)}`;
  return masked;
}

/** A query or a fragment, each of its `&`-separated pairs masked on its own. */
function maskPairList(pairs: string, secretName: (name: string) => boolean): string {
  return pairs
    .split('&')
    .map((pair) => maskPart(pair, secretName, KEPT_IN_QUERY))
    .join('&');
}

/** `text` with percent-encoding undone until nothing changes, or undefined if it still changes after the rounds. */
export function fullyDecoded(text: string): string | undefined {
  let current = text;
  for (let round = 0; round < DECODING_ROUNDS; round++) {
    const next = decodedOnce(current);
    if (next === current) return current;
    current = next;
  }
  return STILL_ENCODED.test(current) ? undefined : current;
}

/** One part of a URL as it was when it holds no secret, else decoded and masked, or masked whole if it never decodes. */
function maskPart(part: string, secretName: (name: string) => boolean, kept: RegExp): string {
  if (part === '' || part === MASK) return part;
  // Credentials are looked for before decoding too: a password's encoded `/` ends it only once decoded.
  const raw = maskSecretValues(part);
  const decoded = fullyDecoded(raw);
  if (decoded === undefined) return MASK;
  const masked = maskPairs(maskSecretValues(decoded), secretName);
  if (raw === part && masked === decoded) return part;
  return masked.replace(kept, encodedCharacter);
}

/**
 * A decoded part with the value of its first pair named as a secret masked to the part's end: inside a decoded part
 * an `&`, `#` or `;` may have been part of the value (`abc%26rest`), so nothing after it is shown.
 */
function maskPairs(text: string, secretName: (name: string) => boolean): string {
  if (!text.includes('=')) return text;
  NAME.lastIndex = 0;
  for (let pair = NAME.exec(text); pair !== null; pair = NAME.exec(text)) {
    const start = pair.index + pair[0].length;
    // A value that is not masked is searched for further pairs (`next=/a?token=…`).
    if (pair[1] === '' || !secretName(pair[1])) continue;
    const value = text.slice(start);
    return value === '' || value === MASK ? text : text.slice(0, start) + MASK;
  }
  return text;
}

function decodedOnce(text: string): string {
  return text
    .replaceAll('+', ' ')
    .replace(PERCENT_RUN, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

function encodedCharacter(character: string): string {
  if (character === "'") return '%27';
  try {
    return encodeURIComponent(character);
  } catch {
    // A lone surrogate: shown as the replacement character.
    return '%EF%BF%BD';
  }
}
