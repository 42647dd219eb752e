import { validateForm } from './validate-form.js';
import { WholeNumber } from './whole-number.decorator.js';

class QuantityForm {
  @WholeNumber(1, 99)
  quantity!: number;
}

describe('WholeNumber', () => {
  it.each([
    ['1', 1],
    [' 42 ', 42],
    ['99', 99],
    [7, 7],
  ])('accepts %p as the number %p', async (input, expected) => {
    const { value, violations } = await validateForm(QuantityForm, { quantity: input });
    expect(violations).toEqual([]);
    expect(value.quantity).toBe(expected);
  });

  it.each([[undefined], [''], ['abc'], ['1.5'], [1.5], ['0'], ['100'], ['-1'], ['1e3'], [[3]], [{}]])(
    'refuses %p with one message',
    async (input) => {
      const { errors } = await validateForm(QuantityForm, input === undefined ? {} : { quantity: input });
      expect(errors).toEqual({ quantity: ['quantity must be a whole number from 1 to 99.'] });
    },
  );
});
