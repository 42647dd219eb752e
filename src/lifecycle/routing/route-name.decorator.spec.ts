import { defaultRouteName } from './route-name.decorator.js';

describe('defaultRouteName', () => {
  it('is the controller without its suffix and the method, in snake case', () => {
    expect(defaultRouteName('ProductsController.show')).toBe('products_show');
    expect(defaultRouteName('OrderHistoryController.listForCustomer')).toBe('order_history_list_for_customer');
    expect(defaultRouteName('HTTPCacheController.index')).toBe('http_cache_index');
  });
});
