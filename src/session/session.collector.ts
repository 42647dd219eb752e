import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import { DataCollector, type PanelBadge, type ToolbarBlock } from '../profiler/collectors/data-collector.js';
import { rows } from '../profiler/collectors/request.collector.js';
import { toJsonSafe } from '../profiler/collectors/json-safe.js';
import { SESSION_REPORT, type SessionReport } from './session-context.js';

const OUTCOMES: Record<SessionReport['outcome'], string> = {
  none: 'nothing stored (no session)',
  untouched: 'unchanged, not written',
  touched: 'unchanged, expiry renewed',
  saved: 'saved',
  destroyed: 'removed (emptied or logged out)',
};

const SHORT_OUTCOMES: Record<SessionReport['outcome'], string> = {
  none: 'none',
  untouched: 'read',
  touched: 'renewed',
  saved: 'saved',
  destroyed: 'removed',
};

/** The Session panel: what the session listener found and did, and the attributes (secrets masked). */
@Injectable()
export class SessionCollector extends DataCollector<SessionReport> {
  readonly name = 'session';
  readonly label = 'Session';
  override readonly priority = 190;
  override readonly deferrable = true;
  override readonly emptyText = 'No session was started for this request.';

  override lateCollect(context: KernelContext): SessionReport | undefined {
    const report = context.get(SESSION_REPORT);
    if (!report) return undefined;
    return { ...report, attributes: toJsonSafe(report.attributes, { maxDepth: 5 }) as Record<string, unknown> };
  }

  override badge(data: SessionReport): PanelBadge | null {
    if (data.outcome === 'saved') return { text: 'saved', kind: 'info' };
    if (data.outcome === 'destroyed') return { text: 'removed', kind: 'warning' };
    return null;
  }

  /** What happened to the session, and how much it holds. */
  override toolbar(data: SessionReport): ToolbarBlock {
    const attributes = Object.keys(data.attributes).length;
    return {
      outcome: SHORT_OUTCOMES[data.outcome],
      rows: [
        { label: 'Session', value: data.idPrefix ? `${data.idPrefix}...` : '(none)' },
        { label: 'At the response', value: OUTCOMES[data.outcome] },
        { label: 'Attributes', value: String(attributes) },
        { label: 'Cookie sent', value: data.cookieSet ? 'yes' : 'no' },
        { label: 'User id', value: data.userId === null ? '(anonymous)' : String(data.userId) },
      ],
    };
  }

  override panel(data: SessionReport): object {
    return {
      overview: rows({
        'Session id': data.idPrefix ? `${data.idPrefix}… (the rest is a credential)` : '(none)',
        'Cookie received': data.cookieReceived
          ? data.unknownCookie
            ? 'yes, for an unknown or expired session'
            : 'yes'
          : 'no',
        'At the response': OUTCOMES[data.outcome],
        'New id (migrated)': data.migrated ? 'yes' : 'no',
        'Cookie sent': data.cookieSet ? 'yes (HttpOnly, SameSite=Lax)' : 'no',
        Expires: data.expiresAt ?? '',
        'User id': data.userId ?? '(anonymous)',
        'Response made private': data.madePrivate ? 'yes (the page used the session)' : 'no',
      }),
      attributeRows: rows(data.attributes),
    };
  }
}
