/**
 * How the catalogue shows money and stock. The shop sells in euros: prices are integer cents, shown as `€12.50`
 * (`€1,234.50` from a thousand on), the same on every locale.
 */
export const CURRENCY_SYMBOL = '€';

/** At or below this many units, a product shows "Only N left". */
export const LOW_STOCK = 5;

export function formatPrice(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  const units = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${CURRENCY_SYMBOL}${units}.${String(abs % 100).padStart(2, '0')}`;
}

export type StockLevel = 'in-stock' | 'low-stock' | 'out-of-stock';

export function stockState(stock: number): { level: StockLevel; text: string } {
  if (stock <= 0) return { level: 'out-of-stock', text: 'Out of stock' };
  if (stock <= LOW_STOCK) return { level: 'low-stock', text: `Only ${stock} left` };
  return { level: 'in-stock', text: 'In stock' };
}
