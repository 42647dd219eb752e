/** The orders a product list can be sorted in (`?sort=`); the first is the default. */
export const CATALOGUE_SORTS = ['name', 'price_asc', 'price_desc', 'newest'] as const;

export type CatalogueSort = (typeof CATALOGUE_SORTS)[number];

export const DEFAULT_SORT: CatalogueSort = 'name';

export const SORT_LABELS: Record<CatalogueSort, string> = {
  name: 'Name',
  price_asc: 'Price, low to high',
  price_desc: 'Price, high to low',
  newest: 'Newest first',
};

export function isCatalogueSort(value: string): value is CatalogueSort {
  return (CATALOGUE_SORTS as readonly string[]).includes(value);
}
