import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../../lifecycle/kernel.events.js';
import { countLogs, type LogCounts } from '../../lifecycle/logging/log-counts.js';
import { statusClass } from '../collectors/response.collector.js';
import { Profile } from '../profile.js';
import { ProfilerViews } from '../views/profiler-views.js';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { isProfilerPage } from '../profiler-path.js';

/**
 * Injects the debug toolbar before the last `</body>` of HTML pages of profiled requests: not for XHR,
 * redirects, attachments, streamed or non-HTML responses, nor for the profiler's own pages. Plain HTML and CSS,
 * no script; when the page has a Content-Security-Policy, its style-src is widened by a nonce for the toolbar's
 * stylesheet only.
 */
@Injectable()
export class WebDebugToolbarListener {
  constructor(
    private readonly views: ProfilerViews,
    private readonly access: DebugAccess,
  ) {}

  @KernelListener(KernelEvents.RESPONSE, { priority: -128 })
  onKernelResponse(event: ResponseEvent): void {
    const request = event.request;
    const response = event.response;
    const profile = Profile.of(request.context);
    if (!profile || !event.isMainRequest || request.isXmlHttpRequest || !this.access.allows(request)) return;
    if (response.streamed || response.isRedirect || !response.isHtml) return;
    // A page shared with another origin (CORS) would share the toolbar's details with it.
    if (response.hasHeader('access-control-allow-origin')) return;
    if (/\battachment\b/i.test(response.getHeader('content-disposition') ?? '')) return;
    if (request.routeName?.startsWith('_profiler') || isProfilerPage(request.pathInfo)) return;
    const body = response.body;
    if (body === undefined) return;
    // The page as bytes: Express's res.send has already encoded one of 1,000 characters or more, and a page the
    // kernel writes is encoded once anyway; the toolbar is encoded alone and spliced in, so the page is neither
    // decoded again nor joined as a string that would be copied once more to encode it.
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const at = lastBodyClose(bytes);
    if (at === -1) return;
    const nonce = this.allowStyle(event);
    const toolbar = this.views.fragment('toolbar', {
      token: profile.token,
      profileUrl: `/_profiler/${profile.token}`,
      status: response.status,
      statusClass: statusClass(response.status),
      route: request.routeName ?? null,
      time: request.context.elapsed().toFixed(0),
      memory: (getHeapStatistics().used_heap_size / 1024 / 1024).toFixed(1),
      logs: toolbarLogs(countLogs(request.context.logs)),
      nonce,
    });
    response.body = Buffer.concat([bytes.subarray(0, at), Buffer.from(`${toolbar}\n`, 'utf8'), bytes.subarray(at)]);
  }

  /** Adds a nonce for the toolbar's style to the page's CSP (creating style-src from default-src if needed). */
  private allowStyle(event: ResponseEvent): string | null {
    const response = event.response;
    const header = ['content-security-policy', 'content-security-policy-report-only'].find((h) => response.hasHeader(h));
    if (!header) return null;
    const nonce = randomBytes(16).toString('hex');
    const directives = (response.getHeader(header) ?? '').split(';').map((d) => d.trim()).filter(Boolean);
    const styleIndex = directives.findIndex((d) => /^style-src(\s|$)/i.test(d));
    if (styleIndex !== -1) {
      directives[styleIndex] = withSource(directives[styleIndex], `'nonce-${nonce}'`);
    } else {
      const defaults = directives.find((d) => /^default-src(\s|$)/i.test(d));
      directives.push(withSource(defaults ? defaults.replace(/^default-src/i, 'style-src') : "style-src 'self'", `'nonce-${nonce}'`));
    }
    response.setHeader(header, directives.join('; '));
    return nonce;
  }
}

/** A source added to a directive; `'none'` goes, since it cannot be combined. */
function withSource(directive: string, source: string): string {
  return `${directive.replace(/\s'none'/i, '')} ${source}`;
}


/**
 * The byte offset of the last `</body>`, in any letter case; the common lower-case spelling found without decoding
 * the page. `</body>` is ASCII, so no multi-byte character of UTF-8 can hold a match.
 */
function lastBodyClose(bytes: Buffer): number {
  const at = bytes.lastIndexOf('</body>', undefined, 'latin1');
  if (at !== -1) return at;
  const matches = [...bytes.toString('latin1').matchAll(/<\/body>/gi)];
  return matches.length ? matches[matches.length - 1].index! : -1;
}

/** The toolbar's logs block: errors and warnings, shown only when there are some. */
function toolbarLogs(counts: LogCounts): { errors: number; warnings: number } | null {
  return counts.errors + counts.warnings > 0 ? { errors: counts.errors, warnings: counts.warnings } : null;
}
