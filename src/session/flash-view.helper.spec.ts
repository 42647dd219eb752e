import type { Response } from 'express';
import hbs from 'hbs';
import { KernelContext, kernelContextStorage } from '../lifecycle/kernel-context.js';
import { FlashViewHelper } from './flash-view.helper.js';
import { SESSION } from './session-context.js';
import { Session } from './session.js';

describe('FlashViewHelper', () => {
  new FlashViewHelper().onModuleInit();
  const template = hbs.handlebars.compile('{{#each (flashes)}}[{{type}}: {{message}}]{{/each}}');
  const render = (session?: Session): string => {
    const context = new KernelContext({} as Response, 'en');
    if (session) context.set(SESSION, session);
    return kernelContextStorage.run(context, () => template({}));
  };

  it('shows the flash messages once, escaped', () => {
    const session = new Session(null);
    session.addFlash('success', 'Order <b>SK-1</b> placed.');
    session.addFlash('info', 'Welcome back.');
    expect(render(session)).toBe('[success: Order &lt;b&gt;SK-1&lt;/b&gt; placed.][info: Welcome back.]');
    expect(render(session)).toBe('');
  });

  it('shows nothing, changing nothing, for a closed session, no session or no request', () => {
    const closed = new Session('s'.repeat(43), { _flashes: [{ type: 'info', message: 'late' }] });
    closed.close();
    expect(render(closed)).toBe('');
    expect(closed.peek()).toEqual({ _flashes: [{ type: 'info', message: 'late' }] });
    expect(render()).toBe('');
    expect(template({})).toBe('');
  });
});
