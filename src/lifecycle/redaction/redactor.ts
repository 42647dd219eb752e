import { remembered } from '../remembered.js';

/** What a secret is replaced by, everywhere the profiler shows or stores request data. */
export const MASK = '******';

const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-csrf-token|x-xsrf-token|api-key|.*-token|.*-secret|.*-api-key)$/i;
/** Our own headers that match the secret patterns but name public things (the profile's token). */
const PUBLIC_HEADERS = new Set(['x-debug-token', 'x-previous-debug-token']);
const SECRET_FIELDS = /pass(word|wd|phrase)?|secret|token|api[-_]?key|card|cvv|cvc|iban|pin$|^pin|authorization|cookie|session|credential|private[-_]?key/i;

/** A query pair after `?`, `&` or `;`: its separator, name and value (up to the next delimiter). */
const QUERY_PAIR = /([?&;])([^=&;#\s"'<>?]+)=([^&;#\s"'<>]*)/g;
/**
 * `scheme://user:password@`. The lookbehind lets a scheme start only where no scheme character precedes: without
 * it every position of a long run of letters was tried as a scheme start, each scanning the run to its end, so a
 * 40 KB URL took seconds (quadratic).
 */
const URL_CREDENTIALS = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)([^\s/:@]*):[^\s/@]+@/gi;

/**
 * Masks secrets in what the profiler records: header values of credential headers, cookie values, and fields
 * of bodies, sessions and log contexts whose names look like secrets. The stored profile holds the mask, never
 * the value.
 */
export class Redactor {
  static isSecretHeader(name: string): boolean {
    return remembered(Redactor.headerVerdicts, name, secretHeader, VERDICTS_KEPT);
  }

  /** Verdicts by header name: every request sends the same dozen names, and the pattern backtracks on each. */
  private static readonly headerVerdicts = new Map<string, boolean>();

  /** Extra field-name patterns from the configuration (PROFILER_REDACT_FIELDS), on top of the built-in ones. */
  private static extraFields: RegExp[] = [];

  static configure(extraFieldPatterns: readonly RegExp[]): void {
    Redactor.extraFields = [...extraFieldPatterns];
    Redactor.fieldVerdicts.clear();
  }

  /**
   * Verdicts by field name: the same few names (event, listener, route, sql…) come back in every request's log
   * contexts, so their patterns are run once. Bounded: names that are request data (a JSON body's keys) must not
   * grow it without end.
   */
  private static readonly fieldVerdicts = new Map<string, boolean>();

  static isSecretField(name: string): boolean {
    return remembered(Redactor.fieldVerdicts, name, Redactor.secretField, VERDICTS_KEPT);
  }

  private static secretField(name: string): boolean {
    return SECRET_FIELDS.test(name) || (Redactor.extraFields.length > 0 && Redactor.extraFields.some((p) => p.test(name)));
  }

  /**
   * Secrets inside free text (a URL, a log message, an exception message): the values of query parameters named like
   * secrets (`?token=…&password=…`) and the password of URL credentials (`//user:password@host`).
   */
  static text(text: string): string {
    // Most strings hold neither `=` nor `@`: two scans, no regular expression.
    const masked = text.includes('=') ? text.replace(QUERY_PAIR, maskQueryPair) : text;
    return masked.includes('@') ? masked.replace(URL_CREDENTIALS, (_, scheme: string, user: string) => `${scheme}${user}:${MASK}@`) : masked;
  }

  static headers(headers: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      out[name] = Redactor.isSecretHeader(name) ? MASK : Redactor.text(text);
    }
    return out;
  }
}

function secretHeader(name: string): boolean {
  return SECRET_HEADERS.test(name) && !PUBLIC_HEADERS.has(name.toLowerCase());
}

/** Verdicts by name kept, up to this many: names are request data, which must not grow the maps without end. */
const VERDICTS_KEPT = 2048;

function maskQueryPair(pair: string, separator: string, name: string, value: string): string {
  if (value === '' || value === MASK) return pair;
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed name is judged as written.
  }
  return Redactor.isSecretField(decoded) ? `${separator}${name}=${MASK}` : pair;
}
