import { Module } from '@nestjs/common';
import { SessionModule } from '../session/session.module.js';
import { CsrfTokenManager } from './csrf/csrf-token-manager.js';
import { CsrfViewHelper } from './csrf/csrf-view.helper.js';
import { CsrfListener } from './csrf/csrf.listener.js';

/** Protection of forms and pages: CSRF tokens (issued in templates, checked in kernel.controller). */
@Module({
  imports: [SessionModule],
  providers: [CsrfTokenManager, CsrfListener, CsrfViewHelper],
  exports: [CsrfTokenManager],
})
export class SecurityModule {}
