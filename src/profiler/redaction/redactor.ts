/** What a secret is replaced by, everywhere the profiler shows or stores request data. */
export const MASK = '******';

const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-csrf-token|x-xsrf-token|api-key|.*-token|.*-secret|.*-api-key)$/i;
/** Our own headers that match the secret patterns but name public things (the profile's token). */
const PUBLIC_HEADERS = new Set(['x-debug-token', 'x-previous-debug-token']);
const SECRET_FIELDS = /pass(word|wd|phrase)?|secret|token|api[-_]?key|card|cvv|cvc|iban|pin$|^pin|authorization|cookie|session|credential|private[-_]?key/i;

/**
 * Masks secrets in what the profiler records: header values of credential headers, cookie values, and fields
 * of bodies, sessions and log contexts whose names look like secrets. The stored profile holds the mask, never
 * the value.
 */
export class Redactor {
  static isSecretHeader(name: string): boolean {
    return SECRET_HEADERS.test(name) && !PUBLIC_HEADERS.has(name.toLowerCase());
  }

  static isSecretField(name: string): boolean {
    return SECRET_FIELDS.test(name);
  }

  static headers(headers: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      out[name] = Redactor.isSecretHeader(name) ? MASK : text;
    }
    return out;
  }
}
