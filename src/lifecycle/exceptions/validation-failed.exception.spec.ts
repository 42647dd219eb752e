import { ValidationFailedException } from './validation-failed.exception.js';

describe('ValidationFailedException', () => {
  it('lists every constraint once, nested properties dotted, with one full stop at the end', () => {
    const failure = ValidationFailedException.fromErrors([
      {
        property: 'quantity',
        value: 0,
        constraints: { wholeNumber: 'quantity must be a whole number from 1 to 99.' },
        children: [],
      },
      {
        property: 'address',
        value: {},
        children: [
          { property: 'city', value: '', constraints: { isNotEmpty: 'city should not be empty' }, children: [] },
        ],
      },
    ]);
    expect(failure.message).toBe(
      'Validation failed: quantity must be a whole number from 1 to 99; city should not be empty.',
    );
    expect(failure.violations.map((v) => v.property)).toEqual(['quantity', 'address.city']);
  });
});
