import hbs from 'hbs';
import { join } from 'node:path';
import { NOTIFIED } from '../../lifecycle/event-dispatcher.js';
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
        new LogEntry(LogLevel.ERROR, 'request', 'Uncaught <b>{class}</b> for {url}', { class: '<script>x</script>', url: '/login?token=abc123' }, AT),
        new LogEntry(LogLevel.INFO, 'app', 'Password {password}', { password: 'hunter2' }, AT),
      ],
      new Set(),
      -1,
      0,
    );
    expect(html.match(/<tr /g)).toHaveLength(2);
    expect(html).toContain('<tr class="level-row-error"><td><span class="level level-error">ERROR</span><br><time>09:30:15</time></td><td>request</td>');
    expect(html).toContain('Uncaught &lt;b&gt;&lt;script&gt;x&lt;/script&gt;&lt;/b&gt; for /login?token=******');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('abc123');
    expect(html).not.toContain('hunter2');
    expect(html).toContain('<details><summary>Context</summary><pre class="context">');
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
    expect(first).toContain('Notified event "kernel.request" to listener "RouterListener::onKernelRequest".');
    expect(first).toContain('<time>09:30:15</time>');
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
});
