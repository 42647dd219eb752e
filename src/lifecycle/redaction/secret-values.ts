/** What a secret is replaced by, everywhere request data is shown, stored or printed. */
export const MASK = '******';

/**
 * `scheme://user:password@`, the password up to the authority's last `@` (a parser's end of the user part). The
 * lookbehind lets a scheme start only where no scheme character precedes: without it every position of a long run of
 * letters would be tried as a scheme start, each scanning the run to its end (quadratic).
 */
const URL_CREDENTIALS = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)([^\s/:@]*):[^\s/]+@/gi;
/**
 * Values that are secrets whatever they are called: payment, GitHub, Slack, AWS, GitLab, npm and OpenAI keys (each at
 * its shortest real length, so that identifiers such as `npm_config_cache` stay), JSON Web Tokens, PEM private keys,
 * and the credential after `Bearer` or `Basic` when it holds a digit or is long ("Bearer authentication" stays). Each
 * starts only where no token character precedes, so a long run is tried once (linear).
 */
const SECRET_VALUE_SOURCE = [
  String.raw`(?<![\w-])(?:(?:sk|rk)_(?:live|test)_[\w-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abeprs]-[\w-]{10,}|xapp-[\w-]{10,}|glpat-[\w-]{20,}|npm_[A-Za-z0-9]{36})`,
  String.raw`(?<![\w-])sk-(?=[\w-]*\d)(?=[\w-]*[A-Z])[\w-]{20,}`,
  String.raw`(?<![\w-])(?:AKIA|ASIA)[0-9A-Z]{16}(?![\w-])`,
  String.raw`(?<![\w-])eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*`,
  String.raw`(?<=(?<![\w-])(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s{1,8})(?=[\w.~+/-]*\d|[\w.~+/-]{24})[\w.~+/-]{8,}=*`,
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
].join('|');
const SECRET_VALUE = new RegExp(SECRET_VALUE_SOURCE, 'g');
const HAS_SECRET_VALUE = new RegExp(SECRET_VALUE_SOURCE);

/** `text` with URL passwords and values shaped like keys and tokens masked, whatever names them. */
export function maskSecretValues(text: string): string {
  const masked = text.includes('@')
    ? text.replace(URL_CREDENTIALS, (_, scheme: string, user: string) => `${scheme}${user}:${MASK}@`)
    : text;
  return masked.replace(SECRET_VALUE, MASK);
}

/** Whether `text` holds a value shaped like a key or token. */
export function holdsSecretValue(text: string): boolean {
  return HAS_SECRET_VALUE.test(text);
}
