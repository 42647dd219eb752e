import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { contextKey, currentKernelContext, type KernelContext } from '../../lifecycle/kernel-context.js';
import { Profile } from '../profile.js';
import { DataCollector } from './data-collector.js';

/** One view rendered during a request; times in milliseconds since the request entered the kernel. */
export interface TemplateRender {
  name: string;
  start: number;
  duration: number;
  error: string | null;
}

export const TEMPLATE_RENDERS = contextKey<TemplateRender[]>('shopkernel.profiler.template-renders');

export interface TemplatesData {
  renders: TemplateRender[];
}

type RenderCallback = (error: Error | null, html?: string) => void;

/**
 * Each view the request rendered (res.render, through Express's app.render), with its time. The Express app's
 * render method is wrapped once, at bootstrap; the wrapper only timestamps and records on profiled requests.
 */
@Injectable()
export class TemplatesCollector extends DataCollector<TemplatesData> implements OnApplicationBootstrap {
  readonly name = 'templates';
  readonly label = 'Templates';
  override readonly priority = 220;
  override readonly deferrable = true;

  constructor(private readonly adapterHost: HttpAdapterHost) {
    super();
  }

  onApplicationBootstrap(): void {
    type Render = ((name: string, options: unknown, callback?: RenderCallback) => void) & { [WRAPPED]?: true };
    const app = this.adapterHost.httpAdapter?.getInstance?.() as { render?: Render } | undefined;
    if (!app || typeof app.render !== 'function' || app.render[WRAPPED]) return;
    const original = app.render;
    const wrapped: Render = function (this: unknown, name: string, options: unknown, callback?: RenderCallback) {
      const context = currentKernelContext();
      if (typeof options === 'function') {
        callback = options as RenderCallback;
        options = {};
      }
      if (!context || !Profile.of(context) || !callback) return original.call(this, name, options, callback);
      const render: TemplateRender = { name, start: context.elapsed(), duration: 0, error: null };
      record(context, render);
      const done = callback;
      return original.call(this, name, options, (error: Error | null, html?: string) => {
        render.duration = context.since(render.start);
        if (error) render.error = error.message;
        done(error, html);
      });
    };
    wrapped[WRAPPED] = true;
    app.render = wrapped;
  }

  override lateCollect(context: KernelContext): TemplatesData {
    return { renders: [...(context.get(TEMPLATE_RENDERS) ?? [])] };
  }

  override panel(data: TemplatesData): object {
    const total = data.renders.reduce((sum, r) => sum + r.duration, 0);
    return {
      renders: data.renders.map((r) => ({ ...r, duration: r.duration.toFixed(2), start: r.start.toFixed(2) })),
      count: data.renders.length,
      total: total.toFixed(2),
    };
  }
}

const WRAPPED = Symbol('profiled render');

function record(context: KernelContext, render: TemplateRender): void {
  const list = context.get(TEMPLATE_RENDERS);
  if (list) list.push(render);
  else context.set(TEMPLATE_RENDERS, [render]);
}
