import { Injectable, type OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { currentKernelContext } from '../lifecycle/kernel-context.js';
import { SESSION } from './session-context.js';

/**
 * `{{#each (flashes)}}…{{/each}}` in a template: the session's flash messages (`session.addFlash(type, text)`),
 * taken when the page is rendered, so a redirect's next page shows them once.
 */
@Injectable()
export class FlashViewHelper implements OnModuleInit {
  onModuleInit(): void {
    hbs.registerHelper('flashes', () => {
      const session = currentKernelContext()?.get(SESSION);
      return session && !session.isClosed ? session.takeFlashes() : [];
    });
  }
}
