import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { ValidationFailedException, type Violation } from '../../lifecycle/exceptions/validation-failed.exception.js';

/**
 * A quantity the cart cannot hold (more than in stock, out of stock, more than 99 in a line): a 400 whose message
 * says why, with the same message as a `quantity` violation, so problem+json lists it in every mode and the cart
 * page shows it next to the form.
 */
export class CartQuantityException extends BadRequestHttpException {
  readonly violations: Violation[];

  constructor(message: string, quantity: number) {
    const violations = [{ property: 'quantity', value: quantity, constraints: { quantity: message } }];
    super(message, new ValidationFailedException(violations));
    this.violations = violations;
  }
}
