/** The JSON of each value registered with `serialisedOnce`, by identity. */
const onceJson = new WeakMap<object, string>();

/**
 * Marks a value every profile of the process carries unchanged (the dispatcher's listener table, the configuration
 * snapshot): it is frozen, deeply, and its JSON is written now, once, then reused by `profileJson` in every profile
 * that holds this very object, instead of serialising a large share of every profile again per request.
 */
export function serialisedOnce<T extends object>(value: T): T {
  if (onceJson.has(value)) return value;
  deepFreeze(value);
  onceJson.set(value, JSON.stringify(value) ?? 'null');
  return value;
}

/** Objects with a field marked serialisedOnce (see holdsSerialisedOnce). */
const holders = new WeakSet<object>();

/**
 * Marks a collector's data object that has a field marked `serialisedOnce` (the Events data and its listener
 * table): `profileJson` writes its fields one by one, so that the field's cached JSON is used. Any other object is
 * written by one JSON.stringify call, which is much faster than walking it here (each call has a fixed cost).
 */
export function holdsSerialisedOnce<T extends object>(value: T): T {
  holders.add(value);
  return value;
}

/**
 * The JSON of `data` with the values marked `serialisedOnce` (a collector's data, or a field of data marked
 * `holdsSerialisedOnce`) written from their cached JSON: JSON.stringify's text, except that those values come
 * after the other keys of their object (JSON.parse gives an equal value). The rest is one JSON.stringify call per
 * object: each call has a fixed cost of its own, which adds up over a profile's fields.
 */
export function profileJson(data: Record<string, unknown>): string {
  return compose(data);
}

function compose(object: Record<string, unknown>): string {
  let special = false;
  for (const key in object) {
    const value = object[key];
    if (
      typeof value === 'object' &&
      value !== null &&
      (onceJson.has(value) || holders.has(value)) &&
      Object.hasOwn(object, key)
    ) {
      special = true;
      break;
    }
  }
  if (!special) return JSON.stringify(object);
  const rest: Record<string, unknown> = {};
  let tail = '';
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const value = object[key];
    const json =
      typeof value === 'object' && value !== null
        ? (onceJson.get(value) ?? (holders.has(value) ? compose(value as Record<string, unknown>) : undefined))
        : undefined;
    if (json === undefined) rest[key] = value;
    else tail += `,${JSON.stringify(key)}:${json}`;
  }
  const head = JSON.stringify(rest);
  return head === '{}' ? `{${tail.slice(1)}}` : `${head.slice(0, -1)}${tail}}`;
}

function deepFreeze(value: object, seen = new Set<object>()): void {
  if (seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null) deepFreeze(child, seen);
  }
}
