import { Injectable } from '@nestjs/common';
import { request as httpRequest, validateHeaderName, validateHeaderValue } from 'node:http';
import { isValidHost } from '../../lifecycle/http/host-name.js';
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

/** An absolute URL's authority (host and port) and what follows it up to the fragment. */
const AUTHORITY_AND_TARGET = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/i;

/** Why a replay gave no profile: said on the page the developer sees instead of the comparison. */
export class ReplayFailure extends Error {
  constructor(
    message: string,
    /**
     * 422 when the recorded request cannot be sent again (its Host or URL is not one), 504 when the application did
     * not answer in time, 502 for anything else.
     */
    readonly status: 422 | 502 | 504 = 502,
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
    const headers: Record<string, string> = { [REPLAYED_FROM_HEADER]: record.token };
    for (const [name, value] of Object.entries(recorded?.headers ?? {})) {
      if (NOT_REPLAYED.has(name) || String(value).includes(MASK) || !sendable(name, String(value))) continue;
      headers[name] = String(value);
    }
    let path: string;
    try {
      const target = replayTarget(record.url, recorded?.headers?.host);
      path = target.path;
      // An empty Host leaves Node to name the address asked, as the kernel did for the recorded request.
      if (target.host) headers.host = target.host;
      else delete headers.host;
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: local.address, port: local.port, method: record.method, path, headers, timeout: timeoutMs },
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

/**
 * The Host and path a recorded request is sent again with: its recorded Host field (else its URL's), which must be
 * empty or one the kernel believes (the same rule), and its path and query as the WHATWG URL parser escapes them. Throws the
 * 422 ReplayFailure that says why when there is none: a planted profile can hold any Host (`a b`, `[::1`, `@evil`).
 */
export function replayTarget(url: string, recordedHost: unknown): { host: string; path: string } {
  const parts = AUTHORITY_AND_TARGET.exec(url);
  if (!parts) throw new ReplayFailure(`The recorded URL ${JSON.stringify(url)} is not an absolute URL.`, 422);
  const host = typeof recordedHost === 'string' ? recordedHost : parts[1];
  if (host !== '' && !isValidHost(host))
    throw new ReplayFailure(
      `The recorded Host ${JSON.stringify(host)} is not a valid host name and port, so the request cannot be sent again.`,
      422,
    );
  const target = URL.parse(parts[2] || '/', 'http://replay.invalid');
  if (!target) throw new ReplayFailure(`The recorded URL ${JSON.stringify(url)} has no valid path.`, 422);
  return { host, path: `${target.pathname}${target.search}` };
}

/** Whether Node's HTTP client accepts a header as recorded (a planted profile's may hold a line break). */
function sendable(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
