import type { Response } from 'express';
import type { RenderedPage } from './profiler-views.js';

/** A rendered profiler page with its status and headers (every profiler route's, the Database panel's EXPLAIN too). */
export function send(res: Response, status: number, page: RenderedPage): void {
  res.status(status);
  for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
  res.end(page.html);
}

