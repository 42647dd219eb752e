import { Module } from '@nestjs/common';
import { FlashViewHelper } from './flash-view.helper.js';
import { SessionCollector } from './session.collector.js';
import { SessionListener } from './session.listener.js';
import { SessionStore } from './session.store.js';

/**
 * Sessions for every page (kernel.request/response/finish_request listeners), kept in the shop's database; read
 * one in a handler with `@CurrentSession()`.
 */
@Module({
  providers: [SessionStore, SessionListener, SessionCollector, FlashViewHelper],
  exports: [SessionStore],
})
export class SessionModule {}
