import { remembered } from '../remembered.js';
import { MASK, holdsSecretValue, maskSecretValues } from './secret-values.js';
import { fullyDecoded, maskUrl } from './url-masking.js';

export { MASK } from './secret-values.js';

const SECRET_HEADERS =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-csrf-token|x-xsrf-token|api-key|.*-token|.*-secret|.*-key)$/i;
/** Our own headers that match the secret patterns but name public things (the profile's token). */
const PUBLIC_HEADERS = new Set(['x-debug-token', 'x-previous-debug-token']);
/** Headers whose value is a URL: masked as one. */
const URL_HEADERS = new Set(['referer', 'location', 'content-location', 'origin']);
const SECRET_FIELDS =
  /pass(word|wd|phrase)?|secret|token|api[-_]?key|card|cvv|cvc|iban|pin$|^pin|authorization|cookie|session|credential|private[-_]?key/i;

/** A query parameter's separator (`?`, `&` or `;`), name and `=`: its value is measured in code (`valueEnd`). */
const QUERY_NAME = /([?&;])([^=&;#\s"'<>?]+)=/g;
/** What ends a query value for a parser: the next pair, the fragment, whitespace. */
const VALUE_END = /[&#\s]/g;
/** Closing quotes and brackets at the very end of a value (then maybe `:`, `,`…) end the text around a quoted URL. */
const CLOSERS = new Set(['"', "'", '`', ')', ']', '}', '>']);
const PUNCTUATION = new Set(['.', ',', ':', ';', '!', '?']);
/** A run of text without whitespace that holds a query or percent-encoding: a URL or a part of one, judged as one. */
const URL_WORD = /(?<!\S)[^\s%?]*[%?]\S*/g;
/**
 * Environment variable names that say "credential" in the ways configuration spells it, beyond a secret field's:
 * `STRIPE_SK`, `GITHUB_PAT`, `APP_KEY(S)`, `SENTRY_DSN`, `SMTP_PASS`, `MYSQL_PWD`, `OTEL_EXPORTER_OTLP_HEADERS`,
 * `BASIC_AUTH`, `*_CREDS`, `SLACK_WEBHOOK_URL`, `*_CONNECTION_STRING`, `JWT_*`, `*_SALT`, `*_SASL_*`, `*PRIVATE*`.
 */
const SECRET_VARIABLE =
  /(?:^|_)(?:SK|PAT|KEYS?|DSN|PASS|PWD|PW|SALT|JWT|SASL|HEADERS?)(?:_|$)|PRIVATE|AUTH(?!OR)|CREDS|WEBHOOK|CONN(?:ECTION)?_?STR/i;

/**
 * The one redaction of whatever is stored, shown or printed (the profiler's store and panels, the error pages, the
 * printed log): header values of credential headers, cookie values, fields of bodies, sessions and log contexts whose
 * names look like secrets, and secrets inside free text. What is stored or printed holds the mask, never the value.
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
    Redactor.cleanTexts.clear();
  }

  /**
   * Short texts `text()` found nothing to mask in: the same SQL, log templates and route names come back in every
   * request, and each scan runs several patterns. Only clean texts are kept, so the set never holds a secret.
   */
  private static readonly cleanTexts = new Set<string>();

  /**
   * Verdicts by field name: the same few names (event, listener, route, sql…) come back in every request's log
   * contexts, so their patterns are run once. Bounded: names that are request data (a JSON body's keys) must not
   * grow it without end.
   */
  private static readonly fieldVerdicts = new Map<string, boolean>();

  static isSecretField(name: string): boolean {
    return remembered(Redactor.fieldVerdicts, name, Redactor.secretField, VERDICTS_KEPT);
  }

  /** A name is judged decoded too: a query parser decodes it once, and `%2570assword` is a password a level down. */
  private static secretField(name: string): boolean {
    const decoded = name.includes('%') ? (fullyDecoded(name) ?? name) : name;
    return Redactor.namesSecret(name) || (decoded !== name && Redactor.namesSecret(decoded));
  }

  private static namesSecret(name: string): boolean {
    return (
      SECRET_FIELDS.test(name) || (Redactor.extraFields.length > 0 && Redactor.extraFields.some((p) => p.test(name)))
    );
  }

  /** An environment variable's name that says its value is a credential: a secret field's, or one of SECRET_VARIABLE. */
  static isSecretVariable(name: string): boolean {
    return Redactor.isSecretField(name) || SECRET_VARIABLE.test(name);
  }

  /**
   * An environment variable's value as it may be shown: masked whole when its name says credential, else with what
   * free text and URLs are masked of (URL passwords, secret parameters, values shaped like keys and tokens).
   */
  static variable(name: string, value: string): string {
    if (value === '') return value;
    if (Redactor.isSecretVariable(name)) return MASK;
    const masked = Redactor.text(value);
    return masked.includes('://') ? Redactor.url(masked) : masked;
  }

  /**
   * Secrets inside free text (a URL, a log message, an exception message): the values of query parameters named like
   * secrets (`?token=…&password=…`, each masked up to where a query parser ends it), the password of URL credentials
   * (`//user:password@host`) and values shaped like well-known keys and tokens (`sk_live_…`, `ghp_…`, JWTs). A word
   * holding a query or percent-encoding is also masked as a URL (`url()`), on its decoded form.
   */
  static text(text: string): string {
    const short = text.length <= CLEAN_TEXT_LENGTH;
    if (short && Redactor.cleanTexts.has(text)) return text;
    // Most strings hold neither `=` nor `@`: two scans before the one regular expression.
    let masked = maskSecretValues(text.includes('=') ? maskQuery(text) : text);
    if (masked.includes('%') || masked.includes('?')) masked = masked.replace(URL_WORD, maskUrlWord);
    if (short && masked === text) Redactor.keepClean(text);
    return masked;
  }

  private static keepClean(text: string): void {
    if (Redactor.cleanTexts.size >= CLEAN_TEXTS_KEPT) Redactor.cleanTexts.clear();
    Redactor.cleanTexts.add(text);
  }

  /**
   * A URL (or a path, a query string, a DSN) with its secrets masked, judged on its decoded form: the one masking of
   * every URL that is printed, stored, shown or exported (`maskUrl`). Path and other parameters stay readable.
   */
  static url(url: string): string {
    return maskUrl(url, (name) => Redactor.isSecretField(name));
  }

  /** Whether `text` would change by `text()`, or may: the test that lets a caller keep a string as it is. */
  static mayHoldSecret(text: string): boolean {
    if (text.includes('=') || text.includes('@') || text.includes('%')) return true;
    // Collected data brings the same strings in every request (header values, names, templates): each is scanned once.
    const short = text.length <= CLEAN_TEXT_LENGTH;
    if (short && Redactor.cleanTexts.has(text)) return false;
    if (holdsSecretValue(text)) return true;
    if (short) Redactor.keepClean(text);
    return false;
  }

  static headers(headers: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      if (Redactor.isSecretHeader(name)) out[name] = MASK;
      else out[name] = URL_HEADERS.has(name.toLowerCase()) ? Redactor.url(text) : Redactor.text(text);
    }
    return out;
  }
}

/** A header named as a credential, or named like a secret field (`X-Test-Password`, `X-Session-Id`). */
function secretHeader(name: string): boolean {
  return (SECRET_HEADERS.test(name) || Redactor.isSecretField(name)) && !PUBLIC_HEADERS.has(name.toLowerCase());
}

/** Verdicts by name kept, up to this many: names are request data, which must not grow the maps without end. */
const VERDICTS_KEPT = 2048;
/** Clean texts kept (see `cleanTexts`), each at most this long: a bounded set, most of it SQL. */
const CLEAN_TEXTS_KEPT = 1024;
const CLEAN_TEXT_LENGTH = 2048;

/** `text` with the value of every query parameter named like a secret masked. */
function maskQuery(text: string): string {
  let out = '';
  let copied = 0;
  QUERY_NAME.lastIndex = 0;
  for (let pair = QUERY_NAME.exec(text); pair !== null; pair = QUERY_NAME.exec(text)) {
    const start = pair.index + pair[0].length;
    // A value that is not masked is searched for further pairs (`?next=/a?token=…`); a masked one is skipped.
    if (!secretName(pair[2])) continue;
    const end = valueEnd(text, start);
    QUERY_NAME.lastIndex = Math.max(end, start);
    if (end <= start || text.slice(start, end) === MASK) continue;
    out += text.slice(copied, start) + MASK;
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Where the value starting at `start` ends: where a query parser ends it (`&`, `#`, whitespace, the end of the text),
 * less the closing quotes or brackets at its very end (and the punctuation after them), which close the text around
 * a quoted URL (`"GET /x?token=abc": …`). Quotes, `;`, `<` inside a value do not end it: `?token=abc'SECRET` is
 * masked whole.
 */
function valueEnd(text: string, start: number): number {
  VALUE_END.lastIndex = start;
  const end = VALUE_END.exec(text)?.index ?? text.length;
  let punctuation = end;
  while (punctuation > start && PUNCTUATION.has(text[punctuation - 1]!)) punctuation--;
  let closers = punctuation;
  while (closers > start && CLOSERS.has(text[closers - 1]!)) closers--;
  return closers < punctuation ? closers : end;
}

/** A word of free text as a URL, less the quotes, brackets and punctuation that close the text around it. */
function maskUrlWord(word: string): string {
  let end = word.length;
  while (end > 0 && (CLOSERS.has(word[end - 1]!) || PUNCTUATION.has(word[end - 1]!))) end--;
  return Redactor.url(word.slice(0, end)) + word.slice(end);
}

function secretName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed name is judged as written.
  }
  return Redactor.isSecretField(decoded);
}
