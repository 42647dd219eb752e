import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import { DataCollector, type PanelBadge, type ToolbarBlock } from '../profiler/collectors/data-collector.js';
import { rows } from '../profiler/collectors/request.collector.js';
import { SECURITY_STATE } from './security-context.js';
import {
  SECURITY_PROFILE,
  type AccessDecision,
  type FirewallDecision,
  type SecurityProfile,
} from './security-profile.js';

export interface SecurityData {
  user: { id: number; email: string; roles: string[] } | null;
  firewall: FirewallDecision;
  decisions: AccessDecision[];
  rememberMe: 'set' | 'cleared' | 'unchanged';
  loggedOut: boolean;
  throttled?: SecurityProfile['throttled'];
}

const OUTCOMES: Record<FirewallDecision['outcome'], string> = {
  public: 'public path: no rule applies',
  granted: 'access granted',
  denied: 'access denied (403)',
  'redirected-to-login': 'anonymous: redirected to the login page',
  unauthorized: 'anonymous: 401 (JSON)',
};

/** The Security panel: who the user is, how they were authenticated, the firewall's decision, access decisions. */
@Injectable()
export class SecurityCollector extends DataCollector<SecurityData> {
  readonly name = 'security';
  readonly label = 'Security';
  override readonly priority = 195;
  override readonly deferrable = true;

  override lateCollect(context: KernelContext): SecurityData | undefined {
    const state = context.get(SECURITY_STATE);
    const profile = context.get(SECURITY_PROFILE);
    if (!state && !profile) return undefined;
    const user = state?.user ?? null;
    const rememberMe = state?.rememberMeCookie;
    return {
      user: user ? { ...user, roles: [...user.roles] } : null,
      firewall: profile ? { ...profile.firewall } : { rule: null, authenticatedBy: null, outcome: 'public' },
      decisions: profile ? [...profile.decisions] : [],
      rememberMe: rememberMe === undefined ? 'unchanged' : rememberMe === null ? 'cleared' : 'set',
      loggedOut: profile?.loggedOut ?? false,
      throttled: profile?.throttled ? { ...profile.throttled } : null,
    };
  }

  /** Short enough for the menu: the e-mail's name part, the whole address being in the panel. */
  override badge(data: SecurityData): PanelBadge | null {
    if (data.throttled) return { text: 'throttled', kind: 'error' };
    if (
      data.firewall.outcome === 'denied' ||
      data.firewall.outcome === 'unauthorized' ||
      data.decisions.some((d) => !d.granted)
    )
      return { text: 'denied', kind: 'error' };
    return data.user ? { text: shortName(data.user.email), kind: 'success' } : { text: 'anon.', kind: 'info' };
  }

  /** Who the user is and how they got in; a denial or throttling in red. */
  override toolbar(data: SecurityData): ToolbarBlock {
    const denied =
      data.firewall.outcome === 'denied' ||
      data.firewall.outcome === 'unauthorized' ||
      data.decisions.some((d) => !d.granted);
    return {
      status: data.throttled || denied ? 'error' : null,
      user: data.user?.email ?? null,
      rows: [
        { label: 'User', value: data.user ? `${data.user.email} (#${data.user.id})` : 'anonymous' },
        { label: 'Roles', value: data.user?.roles.join(', ') || '(none)' },
        {
          label: 'Authenticated by',
          value: data.firewall.authenticatedBy ?? (data.user ? '(session)' : '(not authenticated)'),
        },
        { label: 'Firewall', value: OUTCOMES[data.firewall.outcome], status: denied ? 'error' : null },
        ...(data.decisions.length > 0
          ? [
              {
                label: 'Access decisions',
                value: data.decisions.map((d) => `${d.granted ? 'granted' : 'DENIED'}`).join(', '),
              },
            ]
          : []),
        ...(data.throttled ? [{ label: 'Login throttling', value: throttling(data.throttled), status: 'error' }] : []),
      ],
    };
  }

  override panel(data: SecurityData): object {
    if (!data.user) {
      // Anonymous: one line says it all; the rows of a token would all be empty.
      return {
        anonymous: `Not logged in. Firewall: ${OUTCOMES[data.firewall.outcome]}${data.firewall.rule ? ` (rule ${data.firewall.rule})` : ''}.`,
        notes: [
          ...(data.loggedOut ? ['This request logged the user out.'] : []),
          ...(data.rememberMe === 'cleared' ? ['The remember-me cookie was cleared.'] : []),
          ...(data.throttled ? [`Login throttling: ${throttling(data.throttled)}.`] : []),
        ],
        decisions: data.decisions.map((d) => ({ ...d, result: d.granted ? 'GRANTED' : 'DENIED' })),
      };
    }
    return {
      overview: rows({
        Authenticated: data.user ? 'yes' : 'no (anonymous)',
        User: data.user?.email ?? '',
        'User id': data.user?.id ?? '',
        Roles: data.user?.roles.join(', ') ?? '',
        'Authenticated by': data.firewall.authenticatedBy ?? '',
        'Firewall rule': data.firewall.rule ?? '(none: public)',
        'Firewall decision': OUTCOMES[data.firewall.outcome],
        'Remember-me cookie': data.rememberMe,
        'Logged out': data.loggedOut ? 'yes' : 'no',
        'Login throttling': throttling(data.throttled),
      }),
      decisions: data.decisions.map((d) => ({ ...d, result: d.granted ? 'GRANTED' : 'DENIED' })),
    };
  }
}

/** An e-mail's name part, at most 12 characters (an ellipsis ends a longer one). */
function shortName(email: string): string {
  const name = email.split('@', 1)[0];
  return name.length > 12 ? `${name.slice(0, 11)}\u2026` : name;
}

function throttling(throttled: SecurityData['throttled']): string {
  if (!throttled) return 'not refused';
  const whose = throttled.scope === 'account' ? 'this account from this client' : 'this client';
  return `${throttled.action} refused (429): no attempt left for ${whose}, Retry-After ${throttled.retryAfter} s`;
}
