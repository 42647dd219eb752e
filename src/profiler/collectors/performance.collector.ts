import { Injectable } from '@nestjs/common';
import escapeHtml from 'escape-html';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { CONTROLLER_CALL, type ControllerCall } from '../profiler.interceptor.js';
import { Profile } from '../profile.js';
import { DataCollector, type PanelBadge, type TimelineBar, type ToolbarBlock } from './data-collector.js';
import { AppConfig } from '../../config/app-config.js';
import { ProfilerService } from '../profiler.service.js';
import { TEMPLATE_RENDERS, type TemplateRender } from './templates.collector.js';
import { expandEvents } from './events.collector.js';
import type { ProfileRecord } from '../storage/profile-record.js';

/** The kernel's own bars; collectors add theirs under other names (`query`, …). */
export type SectionCategory = 'event' | 'listener' | 'controller' | 'template' | (string & {});

/** One bar of the timeline; times in milliseconds since the request entered the kernel. */
export interface Section extends TimelineBar {
  category: SectionCategory;
  /** For an event: how many listeners it notified. */
  listeners?: number;
}

export interface PerformanceData {
  /**
   * 2: the kernel's event and listener bars are not stored but derived from the Events data when the profile is
   * loaded (they were most of the stored timeline). Absent in profiles stored with every bar.
   */
  version?: 2;
  /** Until the whole response was written. */
  total: number;
  /** Until kernel.response started (the application's work). */
  untilResponse: number | null;
  sections: Section[];
}

const ROW = 18;
const LABEL_WIDTH = 330;
const CHART_WIDTH = 560;

/**
 * Where the request's time went: total time, each kernel event and its listeners, the controller, each template,
 * as a table and an SVG waterfall (drawn when the panel is opened, server-side, no script needed).
 */
@Injectable()
export class PerformanceCollector extends DataCollector<PerformanceData> {
  readonly name = 'performance';
  readonly label = 'Performance';
  override readonly priority = 240;
  override readonly deferrable = true;

  constructor(
    private readonly profiler: ProfilerService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  override lateCollect(context: KernelContext): PerformanceData {
    const sections: Section[] = [];
    const controller = context.get<ControllerCall>(CONTROLLER_CALL);
    if (controller) sections.push({ name: controller.controller, category: 'controller', start: controller.start, duration: controller.duration ?? 0 });
    for (const render of context.get<TemplateRender[]>(TEMPLATE_RENDERS) ?? []) {
      sections.push({ name: render.name, category: 'template', start: render.start, duration: render.duration });
    }
    for (const collector of this.profiler.collectors) {
      if (collector.timeline) sections.push(...collector.timeline(context));
    }
    const response = context.listenerCalls.find((c) => c.event === 'kernel.response');
    // The request's time at kernel.terminate (read then: this runs later, in a batch).
    return { version: 2, total: Profile.of(context)?.cut?.elapsed ?? context.elapsed(), untilResponse: response ? response.start : null, sections };
  }

  override expand(stored: unknown, record: ProfileRecord): PerformanceData {
    const data = stored as PerformanceData;
    if (data.version !== 2) return data;
    const sections: Section[] = [...data.sections];
    let dispatch: Section | undefined;
    for (const call of expandEvents(record.data.events).called) {
      if (!dispatch || dispatch.name !== call.event) {
        dispatch = { name: call.event, category: 'event', start: call.start, duration: 0, listeners: 0 };
        sections.push(dispatch);
      }
      dispatch.listeners = (dispatch.listeners ?? 0) + 1;
      dispatch.duration = Math.max(dispatch.duration, call.start + call.duration - dispatch.start);
      sections.push({ name: call.listener, category: 'listener', start: call.start, duration: call.duration });
    }
    sections.sort((a, b) => a.start - b.start || rank(a.category) - rank(b.category));
    return { total: data.total, untilResponse: data.untilResponse, sections };
  }

  override badge(data: PerformanceData): PanelBadge {
    return { text: `${data.total.toFixed(0)} ms`, kind: 'info' };
  }

  /** Total time, coloured past PROFILER_SLOW_MS; the time until the response and the controller's. */
  override toolbar(data: PerformanceData): ToolbarBlock {
    const slowMs = this.config.profiler.slowRequestMs;
    const controller = data.sections.find((s) => s.category === 'controller');
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    return {
      status: data.total >= slowMs ? 'warning' : null,
      value: data.total.toFixed(0),
      rows: [
        { label: 'Total time', value: ms(data.total) },
        { label: 'Until the response', value: data.untilResponse === null ? '(not reached)' : ms(data.untilResponse) },
        { label: 'Controller', value: controller ? `${ms(controller.duration)} in ${controller.name}` : '(none ran)' },
        { label: 'Slow from', value: `${slowMs} ms (PROFILER_SLOW_MS)`, status: data.total >= slowMs ? 'warning' : null },
      ],
    };
  }

  override panel(data: PerformanceData): object {
    const perEvent = new Map<string, { event: string; duration: number; listeners: number }>();
    for (const s of data.sections) {
      if (s.category !== 'event') continue;
      const row = perEvent.get(s.name) ?? { event: s.name, duration: 0, listeners: 0 };
      row.duration += s.duration;
      row.listeners += s.listeners ?? 0;
      perEvent.set(s.name, row);
    }
    const controller = data.sections.find((s) => s.category === 'controller');
    const templates = data.sections.filter((s) => s.category === 'template');
    return {
      total: data.total.toFixed(2),
      untilResponse: data.untilResponse === null ? null : data.untilResponse.toFixed(2),
      events: [...perEvent.values()].map((e) => ({ ...e, duration: e.duration.toFixed(2) })),
      controller: controller ? { name: controller.name, duration: controller.duration.toFixed(2) } : null,
      templates: templates.map((t) => ({ name: t.name, duration: t.duration.toFixed(2) })),
      templateTime: templates.reduce((sum, t) => sum + t.duration, 0).toFixed(2),
      timeline: timelineSvg(data),
    };
  }
}

function rank(category: SectionCategory): number {
  return ({ event: 0, controller: 1, listener: 2, template: 3 } as Record<string, number>)[category] ?? 4;
}

/** A waterfall: one row per section, bars scaled to the total; every label escaped. */
export function timelineSvg(data: PerformanceData): string {
  const total = Math.max(data.total, ...data.sections.map((s) => s.start + s.duration), 0.001);
  const scale = CHART_WIDTH / total;
  const height = (data.sections.length + 1) * ROW + 24;
  const width = LABEL_WIDTH + CHART_WIDTH + 70;
  const rows = data.sections.map((s, i) => {
    const y = (i + 1) * ROW;
    const x = LABEL_WIDTH + s.start * scale;
    const w = Math.max(1, s.duration * scale);
    const indent = s.category === 'event' || s.category === 'controller' ? 0 : 14;
    const label = escapeHtml(s.name.length > 48 ? `…${s.name.slice(-47)}` : s.name);
    return `<g class="tl-${s.category}"><title>${escapeHtml(s.name)}: ${s.duration.toFixed(2)} ms at ${s.start.toFixed(2)} ms</title>`
      + `<text x="${4 + indent}" y="${y + 13}">${label}</text>`
      + `<rect x="${x.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 6}" rx="2"/>`
      + `<text class="tl-ms" x="${(x + w + 4).toFixed(1)}" y="${y + 13}">${s.duration.toFixed(2)} ms</text></g>`;
  });
  const ticks: string[] = [];
  const step = niceStep(total / 5);
  for (let t = 0; t <= total + 1e-9; t += step) {
    const x = (LABEL_WIDTH + t * scale).toFixed(1);
    ticks.push(`<line class="tl-grid" x1="${x}" y1="${ROW}" x2="${x}" y2="${height - 20}"/><text class="tl-tick" x="${x}" y="${height - 6}">${formatTick(t)}</text>`);
  }
  const totalX = (LABEL_WIDTH + data.total * scale).toFixed(1);
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Request timeline" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`
    + `<text class="tl-head" x="4" y="12">Total ${data.total.toFixed(2)} ms</text>`
    + ticks.join('')
    + `<line class="tl-total" x1="${totalX}" y1="${ROW}" x2="${totalX}" y2="${height - 20}"/>`
    + rows.join('')
    + '</svg>';
}

function niceStep(raw: number): number {
  if (raw <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const n = raw / power;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * power;
}

function formatTick(t: number): string {
  return t >= 10 || t === 0 ? `${Math.round(t)} ms` : `${t.toFixed(t < 1 ? 2 : 1)} ms`;
}
