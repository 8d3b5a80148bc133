/** The client as the quote's {@link PriceSource}: price twins and the balance. */
import type { DeapiClient } from '../../client/index.js';
import type { RequestFields } from '../../client/index.js';
import type { PriceSource } from './quote-price-book.js';

/** Prices through `client`, so its rate governor paces the quote pool. */
export function clientPriceSource(client: Pick<DeapiClient, 'price' | 'balance'>): PriceSource {
  return {
    price: (task, fields, options) => client.price(task, fields as RequestFields, options?.signal ? { signal: options.signal } : {}),
    balance: async (options) => (await client.balance(options?.signal ? { signal: options.signal } : {})).balance,
  };
}
