import { AppConfig } from '../config/app-config.js';
import { DebugAccess } from './debug-access.js';
import type { KernelRequest } from './http/kernel-request.js';

const from = (clientIp: string) => ({ clientIp, attributes: {} }) as unknown as KernelRequest;

describe('DebugAccess', () => {
  const access = new DebugAccess(AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_IPS: 'loopback,10.0.0.0/8' }));

  it('allows the configured addresses and ranges only, each request deciding on its own address', () => {
    // Twice each, in turns: a remembered verdict belongs to its address alone.
    for (let i = 0; i < 2; i++) {
      expect(access.allows(from('127.0.0.1'))).toBe(true);
      expect(access.allows(from('203.0.113.9'))).toBe(false);
      expect(access.allows(from('10.20.30.40'))).toBe(true);
      expect(access.allows(from('::1'))).toBe(true);
      expect(access.allows(from('192.168.1.2'))).toBe(false);
      expect(access.allows(from(''))).toBe(false);
    }
  });

  it('keeps deciding right past the addresses it remembers', () => {
    for (let i = 0; i < 600; i++) expect(access.allows(from(`10.0.${i >> 8}.${i & 255}`))).toBe(true);
    for (let i = 0; i < 600; i++) expect(access.allows(from(`198.51.${i >> 8}.${i & 255}`))).toBe(false);
  });

  it('allows nobody without debug mode', () => {
    const off = new DebugAccess(AppConfig.fromEnv({ APP_ENV: 'prod', APP_DEBUG: '0' }));
    expect(off.allows(from('127.0.0.1'))).toBe(false);
  });

  it('refuses a malformed PROFILER_ALLOWED_IPS at start', () => {
    expect(() => new DebugAccess(AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_IPS: 'not-an-address' }))).toThrow(/^PROFILER_ALLOWED_IPS: /);
  });
});
