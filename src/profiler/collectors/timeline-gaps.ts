import type { TimelineBar } from './data-collector.js';

/** Time on the timeline that no bar covers, named for what the kernel was doing then. */
export interface TimelineGap {
  start: number;
  duration: number;
  label: string;
}

/** What the kernel does between two of its steps (the bar before, the bar after), as its flow reads in http-kernel.ts. */
const BETWEEN: Record<string, string> = {
  '|kernel.request': 'entering the kernel',
  'kernel.request|kernel.controller': 'reading the body, resolving the controller',
  'kernel.controller|kernel.controller_arguments': 'resolving the arguments',
  'kernel.controller_arguments|controller': "Nest's guards, interceptors and pipes",
  'kernel.controller_arguments|kernel.response': 'the controller: its code and awaits (waiting for I/O)',
  'controller|kernel.response': 'the reply after the controller returned, until its first byte',
  'controller|kernel.exception': 'the controller until it threw',
  'kernel.controller_arguments|kernel.exception': 'the controller until it threw',
  'kernel.request|kernel.exception': 'until the exception was caught',
  'kernel.exception|kernel.response': 'rendering the error response',
  'kernel.response|kernel.finish_request': 'completing the response (headers, body length)',
  'kernel.finish_request|': 'after the response was sent, until kernel.terminate',
  'kernel.response|': 'after the response was sent, until kernel.terminate',
};

/** The kernel's steps: each event's dispatch and the controller. Other bars (queries, templates) happen inside them. */
function isStep(bar: TimelineBar): boolean {
  return bar.category === 'event' || bar.category === 'controller';
}

function stepName(bar: TimelineBar | undefined): string {
  if (!bar) return '';
  return bar.category === 'controller' ? 'controller' : bar.name;
}

/**
 * The holes between the kernel's steps from the request's start to `total`, each named by the steps around it, or
 * "unaccounted" where the profile does not record what ran. Inside the controller, the time no query or template
 * covers is its own code and awaits. Holes under `minimum` are rounding, not time.
 */
export function timelineGaps(bars: TimelineBar[], total: number, minimum = 0.01): TimelineGap[] {
  const steps = bars.filter(isStep).sort((a, b) => a.start - b.start);
  const gaps: TimelineGap[] = [];
  let covered = 0;
  let before: TimelineBar | undefined;
  for (const step of [...steps, undefined]) {
    const start = step ? step.start : total;
    if (start - covered >= minimum)
      gaps.push({ start: covered, duration: start - covered, label: nameGap(before, step) });
    if (!step) break;
    if (step.start + step.duration >= covered) {
      covered = step.start + step.duration;
      before = step;
    }
  }
  for (const controller of steps.filter((s) => s.category === 'controller'))
    gaps.push(...insideController(controller, bars, minimum));
  return gaps.sort((a, b) => a.start - b.start);
}

function nameGap(before: TimelineBar | undefined, after: TimelineBar | undefined): string {
  const key = `${stepName(before)}|${stepName(after)}`;
  return (
    BETWEEN[key] ??
    `unaccounted (${before ? `after ${stepName(before)}` : 'at the start'}, ${after ? `before ${stepName(after)}` : 'until kernel.terminate'})`
  );
}

function insideController(controller: TimelineBar, bars: TimelineBar[], minimum: number): TimelineGap[] {
  const end = controller.start + controller.duration;
  const inner = bars
    .filter((b) => !isStep(b) && b.category !== 'listener' && b.start >= controller.start && b.start < end)
    .sort((a, b) => a.start - b.start);
  if (inner.length === 0) return [];
  const gaps: TimelineGap[] = [];
  let covered = controller.start;
  for (const bar of [...inner, undefined]) {
    const start = bar ? bar.start : end;
    if (start - covered >= minimum)
      gaps.push({ start: covered, duration: start - covered, label: 'in the controller: its own code and awaits' });
    if (!bar) break;
    covered = Math.max(covered, bar.start + bar.duration);
  }
  return gaps;
}
