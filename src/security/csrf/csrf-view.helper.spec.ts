import type { Response } from 'express';
import hbs from 'hbs';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { SESSION } from '../../session/session-context.js';
import { Session } from '../../session/session.js';
import { CsrfTokenManager } from './csrf-token-manager.js';
import { CsrfViewHelper } from './csrf-view.helper.js';

describe('CsrfViewHelper', () => {
  const tokens = new CsrfTokenManager();
  new CsrfViewHelper(tokens).onModuleInit();
  const render = (template: string, session?: Session): string => {
    const context = new KernelContext({} as Response, 'en');
    if (session) context.set(SESSION, session);
    return kernelContextStorage.run(context, () => hbs.handlebars.compile(template)({}));
  };

  it("writes the session's token for the purpose, as a hidden field or bare", () => {
    const session = new Session(null);
    const html = render('<form>{{csrf_field "cart"}}</form><meta content="{{csrf_token "cart"}}">', session);
    const token = session.peek()['_csrf_token/cart'] as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(html).toBe(
      `<form><input type="hidden" name="_csrf_token" value="${token}"></form><meta content="${token}">`,
    );
    expect(tokens.isValid(session, 'cart', token)).toBe(true);
  });

  it('needs a purpose and a request being rendered', () => {
    expect(() => render('{{csrf_field}}', new Session(null))).toThrow(
      'csrf_token needs the purpose of the token: {{csrf_token "cart"}}.',
    );
    expect(() => render('{{csrf_token ""}}', new Session(null))).toThrow('csrf_token needs the purpose of the token');
    expect(() => hbs.handlebars.compile('{{csrf_token "cart"}}')({})).toThrow(
      'csrf_token: no request is being rendered.',
    );
  });
});
