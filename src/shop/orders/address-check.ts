import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { AppConfig } from '../../config/app-config.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { COUNTRIES, type CheckoutDto } from './checkout.dto.js';

/** What the address service answers: whether it delivers there, and why not (a message that is no text is ignored). */
const verdictSchema = (zod: typeof z) => zod.object({ deliverable: zod.boolean(), message: zod.unknown().optional() });
type AddressVerdict = z.infer<ReturnType<typeof verdictSchema>>;

let schema: Promise<ReturnType<typeof verdictSchema>> | undefined;
/** zod, loaded when a checkout is first checked: a shop without ADDRESS_CHECK_URL never needs it. */
function addressVerdict(): Promise<ReturnType<typeof verdictSchema>> {
  schema ??= import('zod').then(({ z: zod }) => verdictSchema(zod));
  return schema;
}

/**
 * Asks the carrier's address service (ADDRESS_CHECK_URL, off by default) whether it delivers to a checkout's
 * address: `GET <url>?country=FR&postcode=75001&city=Paris`, answering `{ "deliverable": true }` or
 * `{ "deliverable": false, "message": "…" }`. A service that is down, slow (ADDRESS_CHECK_TIMEOUT_MS) or answers
 * anything else does not stop a sale: the address is taken unchecked and a warning logged.
 */
@Injectable()
export class AddressCheck {
  constructor(
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {}

  /** The address's problems by form field (`postcode`), none when it is deliverable or cannot be checked. */
  async problems(address: CheckoutDto): Promise<Record<string, string[]>> {
    const { url, timeoutMs } = this.config.addressCheck;
    if (url === null) return {};
    const query = new URLSearchParams({ country: address.country, postcode: address.postcode, city: address.city });
    let verdict: AddressVerdict;
    const AddressVerdict = await addressVerdict();
    try {
      const answer = await fetch(`${url}?${query}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!answer.ok) throw new Error(`it answered ${answer.status}`);
      verdict = readVerdict(AddressVerdict, await answer.text());
    } catch (error) {
      this.logger.channel('orders').warning('Address check unavailable ({reason}): the address was taken unchecked.', {
        reason: error instanceof Error ? error.message : String(error),
      });
      return {};
    }
    if (verdict.deliverable) return {};
    const message =
      typeof verdict.message === 'string' && verdict.message.trim() !== ''
        ? verdict.message.trim()
        : `We cannot deliver to ${address.postcode} ${address.city} (${COUNTRIES[address.country]}): check the postcode.`;
    return { postcode: [message] };
  }
}

/** The service's answer, checked: anything but `{ "deliverable": true|false }` is the service failing, said how. */
function readVerdict(AddressVerdict: ReturnType<typeof verdictSchema>, body: string): AddressVerdict {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error('it answered something that is not JSON');
  }
  const verdict = AddressVerdict.safeParse(json);
  if (verdict.success) return verdict.data;
  const shape =
    json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json === 'object' ? null : `a ${typeof json}`;
  throw new Error(`it answered ${shape ?? 'an object without "deliverable": true or false'}`);
}
