import type { ValidationError } from 'class-validator';
import { RequestException } from './request.exception.js';

export interface Violation {
  property: string;
  value: unknown;
  constraints: Record<string, string>;
}

/** A request body or query that fails class-validator; the violations are listed, nested properties dotted. */
export class ValidationFailedException extends RequestException {
  constructor(readonly violations: Violation[]) {
    // One full stop at the end, also after a constraint whose own message ends with one (WholeNumber's).
    const messages = violations.flatMap((v) => Object.values(v.constraints)).map((m) => m.replace(/\.$/, ''));
    super(`Validation failed: ${messages.join('; ')}.`);
  }

  static fromErrors(errors: ValidationError[]): ValidationFailedException {
    const violations: Violation[] = [];
    const walk = (list: ValidationError[], prefix: string): void => {
      for (const error of list) {
        const property = prefix + error.property;
        if (error.constraints) violations.push({ property, value: error.value, constraints: error.constraints });
        if (error.children?.length) walk(error.children, `${property}.`);
      }
    };
    walk(errors, '');
    return new ValidationFailedException(violations);
  }
}
