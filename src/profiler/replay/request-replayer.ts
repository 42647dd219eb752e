import { Injectable } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { MASK } from '../../lifecycle/redaction/redactor.js';
import type { RequestData } from '../collectors/request.collector.js';
import type { ProfileRecord } from '../storage/profile-record.js';

/** How long a replayed request may take before the replay gives up. */
export const REPLAY_TIMEOUT_MS = 10_000;
/** Names the profile a replayed request repeats, for whoever reads its headers. */
export const REPLAYED_FROM_HEADER = 'x-replayed-from';

/** Headers of one connection, not of the request; and the body's, which a replay (GET, HEAD) does not send. */
const NOT_REPLAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-type',
  'expect',
  'upgrade',
]);

/** Where the application took the request that asks for the replay: the replay goes there too. */
export interface LocalAddress {
  address: string;
  port: number;
}

/** Why a replay gave no profile: said on the page the developer sees instead of the comparison. */
export class ReplayFailure extends Error {
  constructor(
    message: string,
    /** 504 when the application did not answer in time, 502 for anything else. */
    readonly status: 502 | 504 = 502,
  ) {
    super(message);
  }
}

/**
 * Sends a recorded GET or HEAD again to this application, on the address and port the replay was asked on, with
 * the recorded path, query and headers (Host included, so the same site answers), and returns the token of the
 * new request's profile. Masked headers are left out: sending `******` as a cookie or a credential would only
 * make a different request; masked query values are sent as recorded.
 */
@Injectable()
export class RequestReplayer {
  replay(record: ProfileRecord, local: LocalAddress, timeoutMs = REPLAY_TIMEOUT_MS): Promise<string> {
    const recorded = record.data.request as RequestData | undefined;
    const target = new URL(record.url);
    const headers: Record<string, string> = { [REPLAYED_FROM_HEADER]: record.token };
    for (const [name, value] of Object.entries(recorded?.headers ?? {})) {
      if (NOT_REPLAYED.has(name) || String(value).includes(MASK)) continue;
      headers[name] = String(value);
    }
    headers.host ??= target.host;
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: local.address,
          port: local.port,
          method: record.method,
          path: `${target.pathname}${target.search}`,
          headers,
          timeout: timeoutMs,
        },
        (response) => {
          response.resume();
          const token = response.headers['x-debug-token'];
          if (typeof token === 'string' && /^[0-9a-f]{6}$/.test(token)) resolve(token);
          else
            reject(
              new ReplayFailure(
                `The replayed request answered ${response.statusCode} without a profile (X-Debug-Token): its path or host may be excluded from profiling.`,
              ),
            );
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(new ReplayFailure(`The replayed request did not answer within ${timeoutMs / 1000} s.`, 504)),
      );
      outgoing.on('error', (error) =>
        reject(
          error instanceof ReplayFailure ? error : new ReplayFailure(`The replay could not be sent: ${error.message}.`),
        ),
      );
      outgoing.end();
    });
  }
}
