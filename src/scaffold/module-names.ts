/** The spellings of a feature module's name, each where TypeScript, SQL, URLs and people expect it. */
export interface ModuleNames {
  /** `gift-cards`: folders, file names, URLs, the CSRF id, the panel's name. */
  kebab: string;
  /** `GiftCards`: class names. */
  pascal: string;
  /** `giftCards`: the request attribute. */
  camel: string;
  /** `gift_cards`: table and route names. */
  snake: string;
  /** `Gift cards`: titles, the panel's label. */
  label: string;
}

/**
 * Names the scaffold refuses: the shop's own features and URL paths, the core's panels, and the folders of the
 * application's concerns, so that a generated module never shadows a route, a panel or a template.
 */
const RESERVED = new Set([
  'account',
  'accounts',
  'admin',
  'api',
  'cart',
  'catalogue',
  'checkout',
  'config',
  'database',
  'events',
  'exception',
  'home',
  'lifecycle',
  'login',
  'logout',
  'logs',
  'memory',
  'orders',
  'performance',
  'products',
  'profiler',
  'register',
  'request',
  'response',
  'routing',
  'scaffold',
  'security',
  'session',
  'templates',
  'users',
  'views',
]);

/**
 * Words JavaScript reserves (strict mode's and modules' included), `undefined`, and what every object already has
 * (`constructor`, `toString`, `__proto__`…): the module's camelCase spelling is an identifier in its controllers
 * (`constructor(private readonly wishlist: …)`), where any of these breaks the build or shadows an inherited member.
 */
const RESERVED_WORDS = new Set([
  ...['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else'],
  ...['enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof'],
  ...['new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void'],
  ...['while', 'with', 'yield', 'let', 'static', 'implements', 'interface', 'package', 'private', 'protected'],
  ...['public', 'await', 'arguments', 'eval', 'undefined', 'prototype'],
  ...Object.getOwnPropertyNames(Object.prototype),
]);

/** Why `name` cannot name a module, or null when it can. */
export function invalidModuleName(name: string): string | null {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name) || name.length > 40)
    return `"${name}" is not a module name: lower-case letters and digits, words joined by single hyphens (gift-cards), at most 40 characters.`;
  if (RESERVED.has(name)) return `"${name}" is taken by the shop or the profiler: choose another name.`;
  const { camel } = moduleNames(name);
  if (RESERVED_WORDS.has(camel) || RESERVED_WORDS.has(name))
    return `"${name}" would be the identifier ${camel}, which JavaScript reserves or every object has: choose another name.`;
  return null;
}

/** The spellings of a valid module name (see `invalidModuleName`). */
export function moduleNames(kebab: string): ModuleNames {
  const words = kebab.split('-');
  const capitalised = words.map((word) => word[0].toUpperCase() + word.slice(1));
  return {
    kebab,
    pascal: capitalised.join(''),
    camel: words[0] + capitalised.slice(1).join(''),
    snake: words.join('_'),
    label: capitalised[0] + (words.length > 1 ? ` ${words.slice(1).join(' ')}` : ''),
  };
}
