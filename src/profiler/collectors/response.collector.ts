import { Injectable } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { DataCollector, type PanelBadge } from './data-collector.js';
import { rows } from './request.collector.js';

export interface ResponseData {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  contentType: string | null;
  /** Bytes of the body as sent; null when it was streamed without a Content-Length. */
  size: number | null;
  streamed: boolean;
  /** False when the connection closed before the whole response was written. */
  completed: boolean;
}

/** The response as it left: status, headers (after every kernel.response listener), content type and size. */
@Injectable()
export class ResponseCollector extends DataCollector<ResponseData> {
  readonly name = 'response';
  readonly label = 'Response';
  override readonly priority = 290;
  override readonly deferrable = true;

  override lateCollect(context: KernelContext): ResponseData {
    const res = context.res;
    const length = res.getHeader('content-length');
    const size = context.responseSize ?? (length !== undefined && /^\d+$/.test(String(length)) ? Number(length) : null);
    const status = res.statusCode;
    return {
      statusCode: status,
      statusText: STATUS_CODES[status] ?? '',
      headers: Redactor.headers(res.getHeaders()),
      contentType: (res.getHeader('content-type') as string | undefined) ?? null,
      size,
      streamed: context.responseSize === undefined,
      completed: res.writableFinished,
    };
  }

  override badge(data: ResponseData): PanelBadge {
    return { text: String(data.statusCode), kind: statusClass(data.statusCode) };
  }

  override panel(data: ResponseData): object {
    return {
      ...data,
      statusClass: statusClass(data.statusCode),
      sizeText: data.size === null ? 'unknown' : formatBytes(data.size),
      headerRows: rows(data.headers).map((row) => (ENCODED_HEADERS.has(row.key) ? decodedRow(row) : row)),
    };
  }
}

/** Headers whose values the kernel percent-encodes (Symfony's), shown decoded: nobody reads `%20`. */
const ENCODED_HEADERS = new Set(['x-debug-exception', 'x-debug-exception-file']);

function decodedRow(row: { key: string; value: string }): { key: string; value: string; note?: string } {
  try {
    const decoded = decodeURIComponent(row.value);
    return decoded === row.value ? row : { ...row, value: decoded, note: 'decoded: sent percent-encoded' };
  } catch {
    return row;
  }
}

/** Symfony's status colours: error above 399, warning above 299. */
export function statusClass(status: number): 'error' | 'warning' | 'success' {
  return status > 399 ? 'error' : status > 299 ? 'warning' : 'success';
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
