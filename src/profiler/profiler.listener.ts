import { Injectable } from '@nestjs/common';
import { KernelListener } from '../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent, type TerminateEvent } from '../lifecycle/kernel.events.js';
import { UrlGenerator } from '../lifecycle/routing/url-generator.js';
import { Profile } from './profile.js';
import { ProfilerService } from './profiler.service.js';
import { DebugAccess } from '../lifecycle/debug-access.js';

const SANE_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Completes each request's profile at kernel.response (collectors, then the X-Debug-Token headers) and hands it
 * to the store at kernel.terminate, after the response was sent. Symfony's ProfilerListener priorities.
 */
@Injectable()
export class ProfilerListener {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly urls: UrlGenerator,
    private readonly access: DebugAccess,
  ) {}

  @KernelListener(KernelEvents.RESPONSE, { priority: -100 })
  onKernelResponse(event: ResponseEvent): void {
    const context = event.request.context;
    const profile = Profile.of(context);
    if (!profile) return;
    this.profiler.collect(context, profile, event.response);
    // The profile is kept either way; only a client allowed to open it is told where it is, and only while the
    // store still takes profiles (a crash closes it): a token handed out names a profile that is stored.
    if (!this.access.allows(event.request) || !this.profiler.storing) return;
    event.response.setHeader('X-Debug-Token', profile.token);
    // Relative when the Host is not one a link could be built on (it failed validation), as Symfony does.
    const link = this.urls.generate('_profiler', { token: profile.token }, SANE_HOST.test(event.request.httpHost));
    event.response.setHeader('X-Debug-Token-Link', link);
  }

  @KernelListener(KernelEvents.TERMINATE, { priority: -1024 })
  onKernelTerminate(event: TerminateEvent): void {
    const context = event.request.context;
    const profile = Profile.of(context);
    if (!profile) return;
    this.profiler.finish(context, profile, event.statusCode);
  }
}
