import { Injectable } from '@nestjs/common';
import { ActionTokens } from '../action-tokens.js';
import type { RequestData } from '../collectors/request.collector.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { curlCommand, type CurlCommand } from './curl-command.js';

/** Methods a replay sends again: those that change nothing. */
export const REPLAYABLE_METHODS = new Set(['GET', 'HEAD']);

/** What the profile page offers for its request: the cURL command, and the Replay form for a GET or HEAD. */
export interface ReplayOffer {
  curl: CurlCommand;
  /** The Replay form's CSRF token; null when the method is not replayed. */
  replayToken: string | null;
}

/** The profile page's "Copy as cURL" and "Replay", and the check of the Replay form's CSRF token. */
@Injectable()
export class ReplayForms {
  private readonly tokens = new ActionTokens();

  offer(profile: ProfileRecord): ReplayOffer {
    return {
      curl: curlCommand(profile.method, profile.url, profile.data.request as RequestData | undefined),
      replayToken: REPLAYABLE_METHODS.has(profile.method) ? this.token(profile.token) : null,
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
