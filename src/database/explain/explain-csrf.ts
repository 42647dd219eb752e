import { Injectable } from '@nestjs/common';
import { ActionTokens } from '../../profiler/action-tokens.js';

/** The CSRF token of an EXPLAIN form (ActionTokens): it names one query of one profile. */
@Injectable()
export class ExplainCsrf {
  private readonly tokens = new ActionTokens();

  token(profile: string, index: number): string {
    return this.tokens.token('explain', profile, index);
  }

  verify(profile: string, index: number, candidate: unknown): boolean {
    return this.tokens.verify(candidate, 'explain', profile, index);
  }
}
