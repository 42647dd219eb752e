import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../../lifecycle/kernel.events.js';
import { Profile } from '../profile.js';
import { ToolbarAssets } from './toolbar-assets.js';
import { withToolbarNonce } from './content-security-policy.js';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { isProfilerPage, PROFILER_PATH } from '../profiler-path.js';

/**
 * Injects the debug toolbar before the last `</body>` of HTML pages of profiled requests: not for XHR, redirects,
 * attachments, streamed or non-HTML responses, nor for the profiler's own pages. What is injected is a loader: a
 * placeholder, the toolbar's stylesheet and script (cached by the browser); the script then fetches the toolbar of
 * this profile from the profiler once the page has loaded, so rendering it costs the page's request nothing. When the
 * page has a Content-Security-Policy, its script-src and style-src gain a nonce for these two elements only.
 */
@Injectable()
export class WebDebugToolbarListener {
  constructor(
    private readonly assets: ToolbarAssets,
    private readonly access: DebugAccess,
  ) {}

  @KernelListener(KernelEvents.RESPONSE, { priority: -128 })
  onKernelResponse(event: ResponseEvent): void {
    const request = event.request;
    const response = event.response;
    const profile = Profile.of(request.context);
    if (!profile || request.isXmlHttpRequest || !this.access.allows(request)) return;
    if (response.streamed || response.isRedirect || !response.isHtml) return;
    // A page shared with another origin (CORS) would share the toolbar's details with it.
    if (response.hasHeader('access-control-allow-origin')) return;
    if (/\battachment\b/i.test(response.getHeader('content-disposition') ?? '')) return;
    if (request.routeName?.startsWith('_profiler') || isProfilerPage(request.pathInfo)) return;
    const body = response.body;
    if (body === undefined) return;
    // The page as bytes: Express's res.send has already encoded one of 1,000 characters or more, and a page the
    // kernel writes is encoded once anyway; the loader is encoded alone and spliced in, so the page is neither
    // decoded again nor joined as a string that would be copied once more to encode it.
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const at = lastBodyClose(bytes);
    if (at === -1) return;
    const nonce = this.allowToolbar(event);
    const loader = toolbarLoader(profile.token, this.assets.stylesheet.url, this.assets.script.url, nonce);
    response.body = Buffer.concat([bytes.subarray(0, at), Buffer.from(loader, 'utf8'), bytes.subarray(at)]);
  }

  /** Widens the page's CSP (either header) by a nonce for the toolbar's script and stylesheet; null without a CSP. */
  private allowToolbar(event: ResponseEvent): string | null {
    const response = event.response;
    const header = ['content-security-policy', 'content-security-policy-report-only'].find((h) =>
      response.hasHeader(h),
    );
    if (!header) return null;
    const nonce = randomBytes(16).toString('hex');
    response.setHeader(header, withToolbarNonce(response.getHeader(header) ?? '', nonce));
    return nonce;
  }
}

/** The markup injected into a page; every value in it is a token, a URL of ours or a hex nonce. */
function toolbarLoader(token: string, stylesheet: string, script: string, nonce: string | null): string {
  const nonceAttribute = nonce ? ` nonce="${nonce}"` : '';
  return `<!-- Shopkernel debug toolbar: profile ${token} -->
<div id="sk-toolbar-${token}" class="sk-toolbar sk-loading" data-token="${token}"><noscript><a class="sk-noscript" href="${PROFILER_PATH}/${token}">Profile ${token}</a></noscript></div>
<link rel="stylesheet" href="${stylesheet}"${nonceAttribute}>
<script src="${script}" data-token="${token}"${nonceAttribute}></script>
`;
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
