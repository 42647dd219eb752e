import { MASK, Redactor } from '../../lifecycle/redaction/redactor.js';

export interface JsonSafeOptions {
  /** Objects nested deeper are replaced by a `[… depth limit]` marker. */
  maxDepth: number;
  /** Keys of an object (items of an array) beyond this are cut, with a marker saying how many. */
  maxBreadth: number;
  /** Longer strings are cut, with a marker. */
  maxString: number;
  /** Mask values whose key looks like a secret. */
  redact: boolean;
  /**
   * Values shown even under a secret-looking key because the request already shows them (a `token` route
   * parameter is part of the URL displayed next to it).
   */
  visible?: ReadonlySet<string>;
}

const DEFAULTS: JsonSafeOptions = { maxDepth: 6, maxBreadth: 100, maxString: 4000, redact: true };

/**
 * A plain JSON value for anything a request produced (log contexts, bodies): cycles, errors, dates, BigInt,
 * functions, class instances and huge values become readable and bounded, and secret-looking fields are masked,
 * in one pass.
 */
export function toJsonSafe(value: unknown, options: Partial<JsonSafeOptions> = {}): unknown {
  if (typeof value === 'object' && value !== null) {
    const limits: FastLimits = {
      maxDepth: options.maxDepth ?? DEFAULTS.maxDepth,
      maxBreadth: options.maxBreadth ?? DEFAULTS.maxBreadth,
      maxString: options.maxString ?? DEFAULTS.maxString,
      redact: options.redact ?? DEFAULTS.redact,
    };
    const copy = fastCopy(value, limits, 0);
    if (copy !== undefined) return copy;
  }
  const o = { ...DEFAULTS, ...options };
  const seen = new Set<object>();
  const walk = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string': {
        const text = o.redact ? Redactor.text(v) : v;
        return text.length > o.maxString
          ? `${text.slice(0, o.maxString)}… (${text.length - o.maxString} more characters, truncated)`
          : text;
      }
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        return v;
      case 'bigint':
        return `${v}n`;
      case 'undefined':
        return null;
      case 'symbol':
        return v.toString();
      case 'function':
        return `[function ${v.name || 'anonymous'}]`;
    }
    if (v === null) return null;
    const obj = v as object;
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
    if (obj instanceof Error)
      return { class: obj.constructor?.name ?? 'Error', message: o.redact ? Redactor.text(obj.message) : obj.message };
    if (Buffer.isBuffer(obj)) return `[Buffer ${obj.length} bytes]`;
    if (seen.has(obj)) return '[circular]';
    if (depth >= o.maxDepth)
      return Array.isArray(obj)
        ? `[array(${obj.length}), depth limit]`
        : `[object ${obj.constructor?.name ?? 'Object'}, depth limit]`;
    seen.add(obj);
    try {
      if (Array.isArray(obj) || obj instanceof Set) {
        const items = Array.isArray(obj) ? obj : [...obj];
        const out = items.slice(0, o.maxBreadth).map((item) => walk(item, depth + 1));
        if (items.length > o.maxBreadth) out.push(`… ${items.length - o.maxBreadth} more items, truncated`);
        return out;
      }
      const entries =
        obj instanceof Map ? [...obj.entries()].map(([k, val]) => [String(k), val] as const) : Object.entries(obj);
      const out: Record<string, unknown> = {};
      let i = 0;
      for (const [key, val] of entries) {
        if (i++ >= o.maxBreadth) {
          out['…'] = `${entries.length - o.maxBreadth} more keys, truncated`;
          break;
        }
        const masked =
          o.redact &&
          Redactor.isSecretField(key) &&
          val !== null &&
          val !== undefined &&
          val !== '' &&
          !(typeof val === 'string' && o.visible?.has(val));
        out[key] = masked ? MASK : walk(val, depth + 1);
      }
      return out;
    } finally {
      seen.delete(obj);
    }
  };
  return walk(value, 0);
}

/**
 * The fast path for what most log contexts and request values are: plain objects and arrays (nested within the
 * depth limit) of short strings, finite numbers, booleans, null and errors, none under a secret-looking key, no string that
 * could hold a secret (`=`, `@`, a key's shape), nothing beyond the breadth limit. Copied as it is, without the walk's closures
 * and bookkeeping; anything else (undefined) takes the full walk, which gives the same result for these values.
 */
function fastCopy(value: unknown, o: FastLimits, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return value.length > o.maxString || (o.redact && Redactor.mayHoldSecret(value)) ? undefined : value;
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  // An error as the walk shows it (an uncaught exception's log context holds one): its class and message.
  if (value instanceof Error) {
    const message: unknown = value.message;
    if (typeof message !== 'string' || (o.redact && Redactor.mayHoldSecret(message))) return undefined;
    return { class: value.constructor?.name ?? 'Error', message };
  }
  // The walk marks an object this deep with a depth-limit marker.
  if (depth >= o.maxDepth) return undefined;
  if (Array.isArray(value)) {
    if (value.length > o.maxBreadth) return undefined;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const copy = fastCopy(value[i], o, depth + 1);
      if (copy === undefined) return undefined;
      out[i] = copy;
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const key in source) {
    if (++keys > o.maxBreadth || !Object.hasOwn(source, key)) return undefined;
    if (o.redact && Redactor.isSecretField(key)) return undefined;
    const copy = fastCopy(source[key], o, depth + 1);
    if (copy === undefined) return undefined;
    out[key] = copy;
  }
  return out;
}

interface FastLimits {
  maxDepth: number;
  maxBreadth: number;
  maxString: number;
  redact: boolean;
}

/** The decoded segments of a URL path: values a profile or error page shows in its URL anyway. */
export function pathSegments(path: string): Set<string> {
  const segments = new Set<string>();
  for (const segment of path.split('/')) {
    if (segment === '') continue;
    try {
      segments.add(decodeURIComponent(segment));
    } catch {
      segments.add(segment);
    }
  }
  return segments;
}
