import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { CONTROLLER_CALL } from '../profiler.interceptor.js';
import { Profile } from '../profile.js';
import {
  DataCollector,
  type PanelBadge,
  type PanelRequest,
  type TimelineBar,
  type ToolbarBlock,
} from './data-collector.js';
import { timelineGaps } from './timeline-gaps.js';
import { timelineSvg, type TimelineRow } from './timeline-svg.js';
import { AppConfig } from '../../config/app-config.js';
import { ProfilerService } from '../profiler.service.js';
import { TEMPLATE_RENDERS } from './templates.collector.js';
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
   * 2: the kernel's event and listener bars, most of a timeline, are not stored but derived from the Events data
   * when the profile is loaded. Absent in profiles stored with every bar.
   */
  version?: 2;
  /** Until the whole response was written. */
  total: number;
  /** Until kernel.response started (the application's work). */
  untilResponse: number | null;
  sections: Section[];
}

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
    const controller = context.get(CONTROLLER_CALL);
    if (controller)
      sections.push({
        name: controller.controller,
        category: 'controller',
        start: controller.start,
        duration: controller.duration ?? 0,
      });
    for (const render of context.get(TEMPLATE_RENDERS) ?? []) {
      sections.push({ name: render.name, category: 'template', start: render.start, duration: render.duration });
    }
    for (const collector of this.profiler.collectors) {
      if (collector.timeline) sections.push(...collector.timeline(context));
    }
    const response = context.listenerCalls.find((c) => c.event === 'kernel.response');
    // The request's time at kernel.terminate (read then: this runs later, in a batch).
    return {
      version: 2,
      total: Profile.of(context)?.cut?.elapsed ?? context.elapsed(),
      untilResponse: response ? response.start : null,
      sections,
    };
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
        {
          label: 'Slow from',
          value: `${slowMs} ms (PROFILER_SLOW_MS)`,
          status: data.total >= slowMs ? 'warning' : null,
        },
      ],
    };
  }

  /**
   * The timeline with the gaps between the kernel's steps as named rows; spans under the threshold (`?threshold=`
   * in ms, DEFAULT_THRESHOLD_MS when absent) are left out of the drawing and counted, as in Symfony's panel.
   */
  override panel(data: PerformanceData, { query }: PanelRequest): object {
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
    const threshold = parseThreshold(query.threshold);
    const gaps = timelineGaps(data.sections, data.total);
    const rows: TimelineRow[] = [
      ...data.sections.map((s) => ({
        name: s.name,
        category: s.category,
        start: s.start,
        duration: s.duration,
        nested: s.category !== 'event' && s.category !== 'controller',
      })),
      ...gaps.map((g) => ({
        name: g.label,
        category: 'gap',
        start: g.start,
        duration: g.duration,
        nested: g.label.startsWith('in the controller'),
      })),
    ].sort((a, b) => a.start - b.start || Number(a.nested) - Number(b.nested));
    const shown = rows.filter((r) => r.duration >= threshold);
    const categories = new Set(shown.map((r) => r.category));
    return {
      total: data.total.toFixed(2),
      untilResponse: data.untilResponse === null ? null : data.untilResponse.toFixed(2),
      events: [...perEvent.values()].map((e) => ({ ...e, duration: e.duration.toFixed(2) })),
      controller: controller ? { name: controller.name, duration: controller.duration.toFixed(2) } : null,
      templates: templates.map((t) => ({ name: t.name, duration: t.duration.toFixed(2) })),
      templateTime: templates.reduce((sum, t) => sum + t.duration, 0).toFixed(2),
      timeline: timelineSvg(shown, data.total),
      legend: LEGEND.filter((l) => categories.has(l.category)).concat(
        [...categories].filter((c) => !LEGEND.some((l) => l.category === c)).map((c) => ({ category: c, label: c })),
      ),
      gaps: gaps.map((g) => ({ label: g.label, start: g.start.toFixed(2), duration: g.duration.toFixed(2) })),
      threshold: String(threshold),
      defaultThreshold: threshold === DEFAULT_THRESHOLD_MS,
      hidden: rows.length - shown.length,
      rowCount: rows.length,
    };
  }
}

/** Spans shorter than this are left out of the timeline unless `?threshold=0` asks for all. */
export const DEFAULT_THRESHOLD_MS = 0.1;

/** The colours of the timeline, in the order they are explained. */
const LEGEND = [
  { category: 'event', label: 'Kernel event (all its listeners)' },
  { category: 'listener', label: 'Listener' },
  { category: 'controller', label: 'Controller' },
  { category: 'query', label: 'Database query' },
  { category: 'http', label: 'Outgoing HTTP call' },
  { category: 'template', label: 'Template' },
  { category: 'gap', label: 'Between the steps (named for what ran)' },
];

function parseThreshold(raw: string | undefined): number {
  const value = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_THRESHOLD_MS;
}

function rank(category: SectionCategory): number {
  return ({ event: 0, controller: 1, listener: 2, template: 3 } as Record<string, number>)[category] ?? 4;
}
