import { Injectable } from '@nestjs/common';
import { formatBytes, statusClass } from '../collectors/response.collector.js';
import { mebibytes, ms, msDelta } from '../views/figures.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { ProfilerViews, type RenderedPage } from '../views/profiler-views.js';
import { profiledOn } from '../views/profile-time.js';
import { compareProfiles, type ComparedSide, type Timed } from './profile-comparison.js';

/** A change of time smaller than this, either way, is shown without a colour: noise between two runs. */
const NOTICEABLE_MS = 0.5;
/** Listeners listed, the largest changes first, and the smallest change listed. */
const MAX_LISTENERS = 12;
const LISTENER_CHANGE_MS = 0.05;

/** How a change reads: its text and whether b is slower, faster or about the same. */
function delta(value: number | null, unit: (v: number) => string = msDelta): { text: string; kind: string } {
  if (value === null) return { text: '', kind: '' };
  const kind = value >= NOTICEABLE_MS ? 'slower' : value <= -NOTICEABLE_MS ? 'faster' : '';
  return { text: unit(value), kind };
}

function timedRow(t: Timed, label = t.name): object {
  return {
    name: label,
    a: t.aMs === null ? 'not run' : ms(t.aMs),
    b: t.bMs === null ? 'not run' : ms(t.bMs),
    delta: delta(t.deltaMs),
  };
}

function sideView(side: ComparedSide): object {
  return {
    ...side,
    statusClass: statusClass(side.status),
    duration: side.durationMs === null ? '(not recorded)' : ms(side.durationMs),
    profiledOn: profiledOn(side.time),
    memory: side.memoryPeakBytes === null ? '' : mebibytes(side.memoryPeakBytes),
    size: side.responseBytes === null ? '(streamed)' : formatBytes(side.responseBytes),
  };
}

/**
 * The comparison of two profiles, a (usually the earlier) and b, side by side with b − a: time (total, each kernel
 * event, the controller, the listeners that changed), memory, the response, the queries added, removed and run a
 * different number of times, and the log entries one side has more of.
 */
@Injectable()
export class ComparisonPage {
  constructor(private readonly views: ProfilerViews) {}

  render(a: ProfileRecord, b: ProfileRecord): RenderedPage {
    const c = compareProfiles(a, b);
    const sides = [sideView(c.a), sideView(c.b)];
    const changed = c.listeners.filter((l) => l.deltaMs === null || Math.abs(l.deltaMs) >= LISTENER_CHANGE_MS);
    const bytes = (v: number) => (v === 0 ? 'same' : `${v > 0 ? '+' : '-'}${formatBytes(Math.abs(v))}`);
    const memoryDelta =
      c.a.memoryPeakBytes === null || c.b.memoryPeakBytes === null ? null : c.b.memoryPeakBytes - c.a.memoryPeakBytes;
    const sizeDelta =
      c.a.responseBytes === null || c.b.responseBytes === null ? null : c.b.responseBytes - c.a.responseBytes;
    return this.views.page('compare', {
      title: `Compare ${a.token} with ${b.token}`,
      a: sides[0],
      b: sides[1],
      sides,
      times: [
        timedRow(c.duration, 'Total'),
        ...c.events.map((e) => timedRow(e)),
        ...(c.controller ? [{ ...timedRow(c.controller), symbol: c.controller.name }] : []),
      ],
      totalDelta: delta(c.duration.deltaMs),
      memory: { delta: memoryDelta === null ? null : { text: bytes(memoryDelta), kind: '' } },
      size: { delta: sizeDelta === null ? null : bytes(sizeDelta) },
      sameStatus: c.a.status === c.b.status,
      headers: c.headers,
      queries: {
        a: `${c.queries.aCount} in ${ms(c.queries.aMs)}`,
        b: `${c.queries.bCount} in ${ms(c.queries.bMs)}`,
        delta: delta(c.queries.bMs - c.queries.aMs),
        countDelta: c.queries.bCount - c.queries.aCount,
        added: c.queries.added.map((q) => ({ sql: q.sql, count: q.bCount, time: ms(q.bMs) })),
        removed: c.queries.removed.map((q) => ({ sql: q.sql, count: q.aCount, time: ms(q.aMs) })),
        changed: c.queries.changed.map((q) => ({ ...q, aTime: ms(q.aMs), bTime: ms(q.bMs) })),
      },
      logs: c.logs.map((l) => ({ ...l, levelClass: l.level.toLowerCase() })),
      listeners: changed.slice(0, MAX_LISTENERS).map((l) => timedRow(l)),
      moreListeners: Math.max(0, changed.length - MAX_LISTENERS),
      listenerThreshold: ms(LISTENER_CHANGE_MS),
    });
  }
}
