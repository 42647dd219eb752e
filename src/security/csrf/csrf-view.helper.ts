import { Injectable, type OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { currentKernelContext } from '../../lifecycle/kernel-context.js';
import { sessionOf } from '../../session/session-context.js';
import { CSRF_FIELD } from './csrf-protected.decorator.js';
import { CsrfTokenManager } from './csrf-token-manager.js';

/**
 * Templates ask for a token where the form is: `{{csrf_field "cart"}}` writes the hidden field,
 * `{{csrf_token "cart"}}` the bare token (for a meta tag read by scripts). The request is the one being rendered
 * (AsyncLocalStorage), so controllers need not pass tokens around.
 */
@Injectable()
export class CsrfViewHelper implements OnModuleInit {
  constructor(private readonly tokens: CsrfTokenManager) {}

  onModuleInit(): void {
    hbs.registerHelper('csrf_token', (id: unknown) => this.token(id));
    hbs.registerHelper('csrf_field', (id: unknown) => {
      // The token is base64url: nothing in it needs escaping.
      return new hbs.handlebars.SafeString(`<input type="hidden" name="${CSRF_FIELD}" value="${this.token(id)}">`);
    });
  }

  private token(id: unknown): string {
    const context = currentKernelContext();
    if (!context) throw new Error('csrf_token: no request is being rendered.');
    if (typeof id !== 'string' || id === '')
      throw new Error('csrf_token needs the purpose of the token: {{csrf_token "cart"}}.');
    return this.tokens.token(sessionOf(context), id);
  }
}
