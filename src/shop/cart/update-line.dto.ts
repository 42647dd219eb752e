import { MAX_QUANTITY } from './cart-rules.js';
import { WholeNumber } from '../../lifecycle/whole-number.decorator.js';

/** A line's new quantity (the cart page's form, `PATCH /api/cart/lines/:productId`); 0 removes the line. */
export class UpdateLineDto {
  @WholeNumber(0, MAX_QUANTITY)
  quantity!: number;
}
