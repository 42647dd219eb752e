import { Injectable } from '@nestjs/common';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import type { DataCollector } from '../collectors/data-collector.js';
import { statusClass } from '../collectors/response.collector.js';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileKind, ProfileRecord, ProfileSummary } from '../storage/profile-record.js';
import type { RequestData } from '../collectors/request.collector.js';
import { ProfilerViews, type RenderedPage } from '../views/profiler-views.js';
import { profiledOn } from '../views/profile-time.js';
import { ReplayForms } from '../replay/replay-forms.js';
import { OLDER_FORMAT } from '../storage/profile-codec.js';

/** A profile's page: its summary, the menu of panels with their badges, and the panel asked for. */
@Injectable()
export class ProfilePage {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly views: ProfilerViews,
    private readonly replays: ReplayForms,
  ) {}

  /** `result`: what an action posted from the panel answered, for the panel to show (PanelRequest.result). */
  async render(
    profile: ProfileRecord,
    panelName: string | undefined,
    query: Record<string, string | undefined>,
    result?: unknown,
  ): Promise<RenderedPage> {
    const collectors = this.profiler.collectors.filter((c) => this.views.hasPanel(c.name));
    const name = panelName ?? (profile.data.exception !== undefined ? 'exception' : 'request');
    const current = collectors.find((c) => c.name === name);
    if (!current) throw new NotFoundHttpException(`Panel "${name}" is not available for token "${profile.token}".`);
    // A profile still waiting for a failing store opens all the same, without its links to the others.
    // Previous and Next stay among the application's requests (and this profile's own kind: a picture's profile
    // leads to the next picture), as the request list does.
    const kinds: ProfileKind[] = profile.kind === 'application' ? ['application'] : ['application', profile.kind];
    const [{ previous, next }, followers] = await Promise.all([
      this.profiler.neighbours(profile.token, kinds).catch(() => ({ previous: null, next: null })),
      this.profiler.redirectsFrom(profile.token).catch(() => []),
    ]);
    const origin = (profile.data.request as RequestData | undefined)?.redirectedFrom ?? null;
    return this.views.page('profile', {
      title: `${current.label} · ${profile.method} ${profile.url}`,
      summary: {
        token: profile.token,
        url: profile.url,
        linkable: (profile.method === 'GET' || profile.method === 'HEAD') && /^https?:\/\/[^/]/.test(profile.url),
        method: profile.method,
        statusCode: profile.statusCode,
        statusClass: statusClass(profile.statusCode),
        ip: profile.ip,
        profiledOn: profiledOn(profile.time),
        duration: profile.duration === null ? null : `${profile.duration.toFixed(1)} ms`,
        route: profile.route,
        traceId: (profile.data.request as RequestData | undefined)?.trace?.traceId ?? null,
      },
      olderFormat: profile.data[OLDER_FORMAT] === true,
      replay: this.replays.offer(profile),
      redirectedFrom: origin,
      redirectedTo: followers.map(neighbour),
      previous: previous && neighbour(previous),
      next: next && neighbour(next),
      menu: collectors.map((c) => this.menuItem(c, profile, c === current)),
      panel: { name: current.name, label: current.label, html: await this.panelHtml(current, profile, query, result) },
    });
  }

  private menuItem(collector: DataCollector, profile: ProfileRecord, current: boolean): object {
    const data = profile.data[collector.name];
    const hasData = collector.hasData(data);
    let badge = null;
    try {
      badge = hasData ? collector.badge(data) : null;
    } catch {
      badge = { text: '?', kind: 'warning' };
    }
    return { name: collector.name, label: collector.label, current, hasData, badge };
  }

  private async panelHtml(
    collector: DataCollector,
    profile: ProfileRecord,
    query: Record<string, string | undefined>,
    result: unknown,
  ): Promise<string> {
    const data = profile.data[collector.name];
    if (!collector.hasData(data))
      return this.views.fragment('panels/empty', { text: collector.emptyText, label: collector.label });
    const model = await collector.panel(data, { profile, query, result });
    return this.views.fragment(`panels/${collector.name}`, {
      ...model,
      levelQuery: query.level,
      channelQuery: query.channel,
    });
  }
}

function neighbour(summary: ProfileSummary): { token: string; method: string; path: string; statusCode: number } {
  let path = summary.url;
  try {
    path = new URL(summary.url).pathname;
  } catch {
    // not a URL the WHATWG parser accepts (a bad Host): shown as recorded
  }
  return { token: summary.token, method: summary.method, path, statusCode: summary.statusCode };
}
