import { Injectable } from '@nestjs/common';
import { getHeapStatistics } from 'node:v8';
import { DataCollector, type PanelBadge, type ToolbarBlock } from './data-collector.js';

export interface MemoryData {
  rss: number;
  /** Highest resident set size of the process so far. */
  peakRss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

const MB = 1024 * 1024;
/**
 * Reading the resident set size costs a /proc read, the peak a getrusage call and the heap a copy of V8's
 * statistics, too much for every request under load: they are sampled at most this often. They are the process's
 * figures, shared by every request of the moment, so a sample this recent says as much.
 */
const SAMPLE_MS = 100;

/**
 * The process's memory when the request ended. Node shares one heap between concurrent requests, so these are
 * the process's figures at that moment (as PHP's are the worker's), not the request's own allocation.
 */
@Injectable()
export class MemoryCollector extends DataCollector<MemoryData> {
  readonly name = 'memory';
  readonly label = 'Memory';
  override readonly priority = 230;
  private sample: MemoryData | null = null;
  private sampledAt = -Infinity;

  override lateCollect(): MemoryData {
    const now = performance.now();
    if (this.sample === null || now - this.sampledAt > SAMPLE_MS) {
      const heap = getHeapStatistics();
      const rss = process.memoryUsage.rss();
      this.sample = {
        rss,
        peakRss: Math.max(rss, process.resourceUsage().maxRSS * 1024),
        heapUsed: heap.used_heap_size,
        heapTotal: heap.total_heap_size,
        external: heap.external_memory,
      };
      this.sampledAt = now;
    }
    return this.sample;
  }

  override badge(data: MemoryData): PanelBadge {
    return { text: `${(data.heapUsed / MB).toFixed(1)} MiB`, kind: 'info' };
  }

  /** Labelled as what it is: the process's heap when the request ended, shared with every other request. */
  override toolbar(data: MemoryData): ToolbarBlock {
    const mib = (bytes: number) => `${(bytes / MB).toFixed(1)} MiB`;
    return {
      value: (data.heapUsed / MB).toFixed(1),
      rows: [
        { label: 'Process heap used', value: mib(data.heapUsed) },
        { label: 'Heap reserved', value: mib(data.heapTotal) },
        { label: 'Resident set size', value: mib(data.rss) },
        { label: 'Peak resident set', value: mib(data.peakRss) },
      ],
      note: "The process's figures when this request ended: Node shares one heap between all requests, so this is not the request's own allocation.",
    };
  }

  override panel(data: MemoryData): object {
    const row = (label: string, bytes: number, note: string) => ({
      label,
      value: `${(bytes / MB).toFixed(1)} MiB`,
      bytes,
      note,
    });
    return {
      rows: [
        row('Heap used', data.heapUsed, 'V8 heap in use by JavaScript objects'),
        row('Heap total', data.heapTotal, 'V8 heap reserved'),
        row('Resident set size', data.rss, 'memory the process holds'),
        row('Peak resident set size', data.peakRss, 'highest since the process started'),
        row('External', data.external, 'C++ objects bound to JavaScript (buffers included)'),
      ],
    };
  }
}
