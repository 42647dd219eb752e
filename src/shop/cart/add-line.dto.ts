import { MAX_QUANTITY, MIN_QUANTITY } from './cart-rules.js';
import { WholeNumber } from '../../lifecycle/whole-number.decorator.js';

/** Adding a product to the cart (the product page's form, `POST /api/cart/lines`). */
export class AddLineDto {
  @WholeNumber(1, Number.MAX_SAFE_INTEGER, { message: 'productId must be a product id (a whole number from 1).' })
  productId!: number;

  @WholeNumber(MIN_QUANTITY, MAX_QUANTITY)
  quantity!: number;
}
