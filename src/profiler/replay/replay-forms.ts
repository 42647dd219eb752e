import { Injectable } from '@nestjs/common';
import { ActionTokens } from '../action-tokens.js';
import type { RequestData } from '../collectors/request.collector.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { curlCommand, type CurlCommand } from './curl-command.js';
import { ReplayFailure, replayTarget } from './request-replayer.js';

/** Methods a replay sends again: those that change nothing. */
export const REPLAYABLE_METHODS = new Set(['GET', 'HEAD']);

/** What the profile page offers for its request: the cURL command, and the Replay form for a GET or HEAD. */
export interface ReplayOffer {
  curl: CurlCommand;
  /** The Replay form's CSRF token; null when the request is not replayed. */
  replayToken: string | null;
  /** Why the request is not replayed (its method, a Host that is not one); null when it is. */
  notReplayed: string | null;
}

/** The profile page's "Copy as cURL" and "Replay", and the check of the Replay form's CSRF token. */
@Injectable()
export class ReplayForms {
  private readonly tokens = new ActionTokens();

  offer(profile: ProfileRecord): ReplayOffer {
    const request = profile.data.request as RequestData | undefined;
    const notReplayed = notReplayedBecause(profile, request);
    return {
      curl: curlCommand(profile.method, profile.url, request),
      replayToken: notReplayed === null ? this.token(profile.token) : null,
      notReplayed,
    };
  }

  /** The Replay form's CSRF token for a profile. */
  token(profile: string): string {
    return this.tokens.token('replay', profile);
  }

  verify(profile: string, candidate: unknown): boolean {
    return this.tokens.verify(candidate, 'replay', profile);
  }
}

/** Why the profile page offers no Replay: the replay would refuse the request the same way (ReplayController). */
function notReplayedBecause(profile: ProfileRecord, request: RequestData | undefined): string | null {
  if (!REPLAYABLE_METHODS.has(profile.method))
    return `A ${profile.method} is not replayed, as it may change something: copy it as cURL.`;
  try {
    replayTarget(profile.url, request?.headers?.host);
    return null;
  } catch (error) {
    if (error instanceof ReplayFailure) return error.message;
    throw error;
  }
}
