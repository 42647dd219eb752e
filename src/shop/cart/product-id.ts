import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';

/** A `:productId` route parameter: a positive whole number, else no such line (404). */
export function parseProductId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new NotFoundHttpException(`Product "${raw}" is not in the cart.`);
  return id;
}
