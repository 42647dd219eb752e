const onceJson = new WeakMap<object, string>();

/** For a value every profile carries unchanged: frozen deeply, its JSON written once, not again per request. */
export function serialisedOnce<T extends object>(value: T): T {
  if (onceJson.has(value)) return value;
  deepFreeze(value);
  onceJson.set(value, JSON.stringify(value) ?? 'null');
  return value;
}

const holders = new WeakSet<object>();

/** Only marked objects are walked to reach a `serialisedOnce` field: each JSON.stringify call has a fixed cost. */
export function holdsSerialisedOnce<T extends object>(value: T): T {
  holders.add(value);
  return value;
}

/**
 * JSON.stringify's text, except that cached values come after their object's other keys (an equal value), as the
 * pieces that make it, in order: written one after the other into a buffer (the arena a waiting profile lives in, the
 * codec's frame), the text never joined (a joined string would be copied once more to be flat before it is encoded).
 */
export function profileJsonParts(data: Record<string, unknown>): string[] {
  const parts: string[] = [];
  compose(data, parts);
  return parts;
}

function compose(object: Record<string, unknown>, parts: string[]): void {
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
  if (!special) {
    parts.push(JSON.stringify(object));
    return;
  }
  const rest: Record<string, unknown> = {};
  const tail: Array<[key: string, value: object]> = [];
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const value = object[key];
    if (typeof value === 'object' && value !== null && (onceJson.has(value) || holders.has(value)))
      tail.push([key, value]);
    else rest[key] = value;
  }
  const head = JSON.stringify(rest);
  let first = head === '{}';
  parts.push(first ? '{' : head.slice(0, -1));
  for (const [key, value] of tail) {
    parts.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    const once = onceJson.get(value);
    if (once !== undefined) parts.push(once);
    else compose(value as Record<string, unknown>, parts);
  }
  parts.push('}');
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
