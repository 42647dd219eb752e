import type { DebugAccess } from '../lifecycle/debug-access.js';
import type { KernelRequest } from '../lifecycle/http/kernel-request.js';
import type { ResponseEvent } from '../lifecycle/kernel.events.js';
import type { UrlGenerator } from '../lifecycle/routing/url-generator.js';
import { Profile } from './profile.js';
import { ProfilerListener } from './profiler.listener.js';
import type { ProfilerService } from './profiler.service.js';

/** kernel.response of a profiled request from an allowed client; the headers it ends with. */
function respond(storing: boolean): { headers: Record<string, string>; collected: number } {
  const profile = new Profile('abc123', null, '127.0.0.1', 'GET', 'http://shop.test/', Date.now());
  const context = { get: () => profile };
  const headers: Record<string, string> = {};
  let collected = 0;
  const profiler = { storing, collect: () => void collected++ } as unknown as ProfilerService;
  const urls = { generate: (_: string, params: { token: string }) => `/_profiler/${params.token}` };
  const listener = new ProfilerListener(
    profiler,
    urls as unknown as UrlGenerator,
    { allows: () => true } as unknown as DebugAccess,
  );
  const request = { context, httpHost: 'shop.test' } as unknown as KernelRequest;
  const response = { setHeader: (name: string, value: string) => (headers[name] = value) };
  listener.onKernelResponse({ request, response } as unknown as ResponseEvent);
  return { headers, collected };
}

describe('ProfilerListener', () => {
  it('tells an allowed client where the profile is', () => {
    expect(respond(true)).toEqual({
      headers: { 'X-Debug-Token': 'abc123', 'X-Debug-Token-Link': '/_profiler/abc123' },
      collected: 1,
    });
  });

  it('hands out no token once the store takes no more profiles (a crash closed it): it would name none', () => {
    expect(respond(false)).toEqual({ headers: {}, collected: 1 });
  });
});
