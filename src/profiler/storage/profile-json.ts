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

/** JSON.stringify's text, except that cached values come after their object's other keys (an equal value). */
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
