import { invalidModuleName, moduleNames } from './module-names.js';

describe('moduleNames', () => {
  it('spells a one-word name for classes, SQL, URLs and people', () => {
    expect(moduleNames('wishlist')).toEqual({
      kebab: 'wishlist',
      pascal: 'Wishlist',
      camel: 'wishlist',
      snake: 'wishlist',
      label: 'Wishlist',
    });
  });

  it('spells a hyphenated name', () => {
    expect(moduleNames('gift-cards2')).toEqual({
      kebab: 'gift-cards2',
      pascal: 'GiftCards2',
      camel: 'giftCards2',
      snake: 'gift_cards2',
      label: 'Gift cards2',
    });
  });
});

describe('invalidModuleName', () => {
  it.each(['wishlist', 'gift-cards', 'b2b-prices', 'x'])('accepts %s', (name) => {
    expect(invalidModuleName(name)).toBeNull();
  });

  it.each([
    '',
    'Wishlist',
    'gift_cards',
    'gift--cards',
    '-gift',
    'gift-',
    '2fa',
    'über',
    '../etc',
    'a b',
    'a'.repeat(41),
  ])('refuses %p with the rule', (name) => {
    expect(invalidModuleName(name)).toBe(
      `"${name}" is not a module name: lower-case letters and digits, words joined by single hyphens (gift-cards), at most 40 characters.`,
    );
  });

  it.each(['cart', 'profiler', 'security', 'api', 'login', 'database'])('refuses the taken name %s', (name) => {
    expect(invalidModuleName(name)).toBe(`"${name}" is taken by the shop or the profiler: choose another name.`);
  });

  it.each([
    ['delete', 'delete'],
    ['new', 'new'],
    ['class', 'class'],
    ['constructor', 'constructor'],
    ['prototype', 'prototype'],
    ['let', 'let'],
    ['yield', 'yield'],
    ['await', 'await'],
    ['enum', 'enum'],
    ['undefined', 'undefined'],
    ['arguments', 'arguments'],
    ['to-string', 'toString'],
    ['value-of', 'valueOf'],
    ['has-own-property', 'hasOwnProperty'],
  ])('refuses %s, whose identifier %s JavaScript reserves or every object has', (name, camel) => {
    expect(invalidModuleName(name)).toBe(
      `"${name}" would be the identifier ${camel}, which JavaScript reserves or every object has: choose another name.`,
    );
  });

  it.each(['news', 'classes', 'deleted', 'constructors', 'gift-cards2', 'type', 'name'])(
    'accepts %s, which only resembles a reserved word',
    (name) => {
      expect(invalidModuleName(name)).toBeNull();
    },
  );
});
