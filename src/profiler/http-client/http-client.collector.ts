import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { DataCollector, type PanelBadge, type TimelineBar, type ToolbarBlock } from '../collectors/data-collector.js';
import { formatBytes } from '../collectors/response.collector.js';
import { SourceResolver } from '../error-page/source-resolver.js';
import { curlCommand } from '../replay/curl-command.js';
import { ms } from '../views/figures.js';
import { OUTGOING_CALLS, type OutgoingCall, type OutgoingCalls } from './outgoing-call.js';

/** A call slower than this is marked in the panel and colours the toolbar block. */
const SLOW_CALL_MS = 1000;

/**
 * The HTTP Client panel (Symfony's `http_client`): every call the request made to another service through `fetch`
 * or node:http (HttpClientRecorder), with its status, time, headers, caller, "Copy as cURL", and the called
 * service's own profile when it is a Shopkernel too; each call a bar of the Performance timeline.
 */
@Injectable()
export class HttpClientCollector extends DataCollector<OutgoingCalls> {
  readonly name = 'http_client';
  readonly label = 'HTTP Client';
  override readonly priority = 195;
  override readonly emptyText = 'This request called no other service (fetch, http.request).';

  constructor(private readonly sources: SourceResolver) {
    super();
  }

  /** At kernel.terminate, not deferred: a call still running then is kept as it is (no duration yet). */
  /** Each call's method and URL (secrets masked), and its error. */
  override searchText(data: OutgoingCalls): string[] {
    return data.calls.map((call) => [call.method, call.url, call.error ?? ''].join(' '));
  }

  override lateCollect(context: KernelContext): OutgoingCalls | undefined {
    const recorded = context.get(OUTGOING_CALLS);
    if (!recorded) return undefined;
    return { calls: recorded.calls.map((call) => ({ ...call })), dropped: recorded.dropped };
  }

  override timeline(context: KernelContext): TimelineBar[] {
    return (context.get(OUTGOING_CALLS)?.calls ?? []).map((call) => ({
      name: `${call.method} ${call.url}`,
      category: 'http',
      start: call.start,
      duration: call.duration ?? context.elapsed() - call.start,
    }));
  }

  override badge(data: OutgoingCalls): PanelBadge {
    const failed = data.calls.some((c) => c.error !== null || (c.status ?? 0) >= 500);
    const warned = data.calls.some((c) => (c.status ?? 0) >= 400 || (c.duration ?? 0) >= SLOW_CALL_MS);
    return { text: String(data.calls.length + data.dropped), kind: failed ? 'error' : warned ? 'warning' : 'info' };
  }

  override get toolbarPriority(): number {
    return 185;
  }

  override toolbar(data: OutgoingCalls): ToolbarBlock {
    const time = data.calls.reduce((sum, c) => sum + (c.duration ?? 0), 0);
    const failed = data.calls.filter((c) => c.error !== null || (c.status ?? 0) >= 400).length;
    return {
      status: failed > 0 ? 'error' : null,
      count: data.calls.length + data.dropped,
      time: ms(time),
      rows: [
        { label: 'Calls', value: String(data.calls.length + data.dropped) },
        { label: 'Total time', value: ms(time) },
        ...(failed > 0 ? [{ label: 'Failed', value: String(failed), status: 'error' }] : []),
        ...data.calls
          .slice(0, 5)
          .map((c) => ({ label: `${c.method} ${c.status ?? (c.error ? 'failed' : '…')}`, value: c.url })),
      ],
    };
  }

  override panel(data: OutgoingCalls): object {
    return {
      count: data.calls.length,
      dropped: data.dropped,
      total: ms(data.calls.reduce((sum, c) => sum + (c.duration ?? 0), 0)),
      calls: data.calls.map((call, index) => this.row(call, index + 1)),
    };
  }

  private row(call: OutgoingCall, number: number): object {
    const curl = curlCommand(call.method, call.url, { headers: call.requestHeaders, body: null });
    const located = call.caller && this.sources.locate(call.caller.file, call.caller.line, call.caller.column);
    const bodyNote =
      call.requestBytes !== null && call.requestBytes > 0
        ? `# The request body (${call.requestBytes} bytes) is not recorded: add it with --data-raw\n`
        : '';
    return {
      ...call,
      number,
      statusClass:
        call.status === null ? 'error' : call.status >= 400 ? 'error' : call.status >= 300 ? 'warning' : 'success',
      outcome: call.error ?? (call.status === null ? 'no answer before the request ended' : String(call.status)),
      time: call.duration === null ? 'still running' : ms(call.duration),
      waitedText: call.waited === null ? '' : ms(call.waited),
      start: ms(call.start),
      slow: (call.duration ?? 0) >= SLOW_CALL_MS,
      size: call.responseBytes === null ? '' : formatBytes(call.responseBytes),
      caller: located ? `${this.sources.relativePath(located.file)}:${located.line}` : null,
      requestHeaderRows: Object.entries(call.requestHeaders).map(([key, value]) => ({ key, value })),
      responseHeaderRows: Object.entries(call.responseHeaders).map(([key, value]) => ({ key, value })),
      curl: bodyNote + curl.command,
      curlId: `curl-${number}`,
    };
  }
}
