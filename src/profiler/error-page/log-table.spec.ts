import hbs from 'hbs';
import { join } from 'node:path';
import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogEntry } from '../../lifecycle/logging/log-entry.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { AppConfig } from '../../config/app-config.js';
import { EditorLinks } from '../editor/editor-links.js';
import { LogTable } from './log-table.js';

const PARTIALS = join(process.cwd(), 'views', 'error', 'partials');
const AT = Date.UTC(2026, 10, 24, 9, 30, 15, 250);

function table(): LogTable {
  return new LogTable(hbs.create().handlebars, PARTIALS, new EditorLinks(AppConfig.fromEnv({ APP_ENV: 'test' })));
}

function notified(context: Readonly<Record<string, unknown>>, timestamp = AT): LogEntry {
  return new LogEntry(LogLevel.DEBUG, 'event', NOTIFIED, context, timestamp);
}

describe('LogTable', () => {
  it('renders one row per entry, every field escaped, secrets masked in the message and the context', () => {
    const html = table().render(
      [
        new LogEntry(
          LogLevel.ERROR,
          'request',
          'Uncaught <b>{class}</b> for {url}',
          { class: '<script>x</script>', url: '/login?token=abc123' },
          AT,
        ),
        new LogEntry(LogLevel.INFO, 'app', 'Password {password}', { password: 'hunter2' }, AT),
      ],
      new Set(),
      -1,
      0,
    );
    expect(html.match(/<tr /g)).toHaveLength(2);
    expect(html).toContain(
      '<tr class="level-row-error"><td><span class="level level-error">ERROR</span><br><time>09:30:15</time></td><td>request</td>',
    );
    expect(html).toContain(
      'Uncaught &lt;b&gt;<mark>&lt;script&gt;x&lt;/script&gt;</mark>&lt;/b&gt; for <mark>/login?token=******</mark>',
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('abc123');
    expect(html).not.toContain('hunter2');
    expect(html).toContain(
      '<pre class="context">{"class":"&lt;script&gt;x&lt;/script&gt;","url":"/login?token=******"}</pre></td></tr>',
    );
  });

  it('shows a short context on one line below its message, and folds a long one, indented', () => {
    const context = Object.freeze({ event: 'kernel.request', listener: 'RouterListener::onKernelRequest' });
    expect(table().render([notified(context)], new Set(), -1, 0)).toContain(
      '".<pre class="context">{"event":"kernel.request","listener":"RouterListener::onKernelRequest"}</pre></td></tr>',
    );
    const long = {
      route: 'product',
      request_uri: 'http://shop.test/products/bamboo-cutting-board?sort=price-ascending',
      method: 'GET',
    };
    const html = table().render([new LogEntry(LogLevel.INFO, 'request', 'Matched', long, AT)], new Set(), -1, 0);
    expect(html).toContain(
      `<details><summary>Context</summary><pre class="context">${JSON.stringify(long, null, 2)}</pre></details>`,
    );
  });

  it('puts the omitted row before the entry it is given', () => {
    const entries = Array.from({ length: 4 }, (_, i) => new LogEntry(LogLevel.INFO, 'app', `entry ${i}`, {}, AT));
    const html = table().render(entries, new Set(), 2, 1234);
    const rows = html.trim().split('\n');
    expect(rows).toHaveLength(5);
    expect(rows[2]).toBe('<tr class="omitted"><td colspan="3">&hellip; 1234 entries omitted &hellip;</td></tr>');
    expect(rows[1]).toContain('entry 1');
    expect(rows[3]).toContain('entry 2');
  });

  it('reuses the row of a shared notification context while its time is the same, and renders it again when not', () => {
    const logs = table();
    const context = Object.freeze({ event: 'kernel.request', listener: 'RouterListener::onKernelRequest' });
    const first = logs.render([notified(context)], new Set(), -1, 0);
    expect(first).toContain(
      'Notified event "<mark>kernel.request</mark>" to listener "<mark>RouterListener::onKernelRequest</mark>".',
    );
    expect(first).toContain('<time>09:30:15</time>');
    expect(first.split('\n')[0]).toBe(
      '<tr class="level-row-debug log-group"><td colspan="3">kernel.request: 1 event notification</td></tr>',
    );
    expect(logs.render([notified(context, AT + 500)], new Set(), -1, 0)).toBe(first);
    const later = logs.render([notified(context, AT + 1000)], new Set(), -1, 0);
    expect(later).toContain('<time>09:30:16</time>');
    expect(later.replace('09:30:16', '09:30:15')).toBe(first);
  });

  it('never shares the row of a context that is not frozen (it may change between requests)', () => {
    const logs = table();
    const context: Record<string, unknown> = { event: 'kernel.request', listener: 'A::on' };
    logs.render([notified(context)], new Set(), -1, 0);
    context.listener = 'B::on';
    expect(logs.render([notified(context)], new Set(), -1, 0)).toContain('B::on');
  });

  it('groups the debug entries of each kernel event under a row naming the event and the count, errors apart', () => {
    const request = Object.freeze({ event: 'kernel.request', listener: 'A::on' });
    const response = Object.freeze({ event: 'kernel.response', listener: 'B::on' });
    const html = table().render(
      [
        // A listener's entry, written before the event's notifications and marked with the event.
        Object.assign(new LogEntry(LogLevel.DEBUG, 'app', 'cache miss', {}, AT), { during: 'kernel.request' }),
        notified(request),
        notified(request),
        new LogEntry(LogLevel.ERROR, 'app', 'failed', {}, AT),
        notified(response),
      ],
      new Set(),
      -1,
      0,
    );
    const groups = [...html.matchAll(/<tr class="level-row-debug log-group"><td colspan="3">([^<]*)<\/td><\/tr>/g)].map(
      (m) => m[1],
    );
    expect(groups).toEqual([
      'kernel.request: 2 event notifications, 1 other debug entry',
      'kernel.response: 1 event notification',
    ]);
    expect(html.match(/<tr class="level-row-/g)).toHaveLength(7);
  });

  it("links an uncaught exception's file to the source view", () => {
    const html = table().render(
      [
        new LogEntry(
          LogLevel.CRITICAL,
          'request',
          'Uncaught {class} at {file} line {line}',
          { class: 'E', file: 'src/a.ts', line: 3 },
          AT,
        ),
      ],
      new Set(),
      -1,
      0,
    );
    expect(html).toContain(
      'Uncaught <mark>E</mark> at <a class="file-link" href="/_profiler/open?file=src/a.ts#L3"><mark>src/a.ts</mark></a> line <mark>3</mark>',
    );
  });
});
