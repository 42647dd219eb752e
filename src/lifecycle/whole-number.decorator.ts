import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * A whole number from `min` to `max`, one violation whatever is wrong (missing, "abc", 1.5, out of range):
 * `quantity must be a whole number from 1 to 99.`. HTML forms send text, so a string of digits becomes its number;
 * anything else is left as it came and refused.
 */
export function WholeNumber(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  const transform = Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : value,
  );
  const validate = ValidateBy(
    {
      name: 'wholeNumber',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be a whole number from ${min} to ${max}.`,
      },
    },
    options,
  );
  return (target: object, property: string | symbol) => {
    transform(target, property);
    validate(target, property);
  };
}
