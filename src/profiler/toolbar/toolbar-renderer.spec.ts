import { DataCollector, type ToolbarBlock } from '../collectors/data-collector.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { ToolbarRenderer } from './toolbar-renderer.js';

class Block extends DataCollector<{ n: number }> {
  constructor(
    readonly name: string,
    override readonly priority: number,
    private readonly make: (data: { n: number }) => ToolbarBlock | null,
  ) {
    super();
  }

  readonly label = 'Block';

  override toolbar(data: { n: number }): ToolbarBlock | null {
    return this.make(data);
  }
}

class Late extends Block {
  override get toolbarPriority(): number {
    return 1;
  }
}

const profile = (data: Record<string, unknown>): ProfileRecord => ({
  token: 'abc123',
  parent: null,
  ip: '::1',
  method: 'GET',
  url: 'http://localhost/',
  time: 0,
  statusCode: 200,
  kind: 'application',
  duration: 1,
  route: null,
  redirectedFrom: null,
  data,
});

describe('ToolbarRenderer', () => {
  const rendered: { name: string; model: Record<string, unknown> }[] = [];
  const views = {
    hasToolbarBlock: (name: string) => name !== 'untemplated',
    fragment: (name: string, model: Record<string, unknown>) => {
      rendered.push({ name, model });
      return name === 'toolbar' ? JSON.stringify(model.blocks) : `<${name}>`;
    },
  };
  const logged: unknown[][] = [];
  const logger = { record: (...args: unknown[]) => logged.push(args) };

  beforeEach(() => {
    rendered.length = 0;
    logged.length = 0;
  });

  it('renders the blocks in toolbar order, only for collectors with data, a toolbar() and a template', () => {
    const collectors = [
      new Block('first', 300, (d) => ({ value: d.n })),
      new Late('late', 280, () => ({ status: 'warning' })),
      new Block('none', 250, () => null),
      new Block('untemplated', 240, () => ({})),
      new Block('nodata', 230, () => ({})),
      new Block('second', 200, (d) => ({ value: d.n, status: 'error' })),
    ];
    const renderer = new ToolbarRenderer({ collectors } as never, views as never, logger as never);
    const html = renderer.render(
      profile({ first: { n: 1 }, late: { n: 2 }, none: { n: 3 }, untemplated: { n: 4 }, second: { n: 5 } }),
    );
    expect(JSON.parse(html)).toEqual([
      { name: 'first', status: null, html: '<toolbar/first>' },
      { name: 'second', status: 'error', html: '<toolbar/second>' },
      { name: 'late', status: 'warning', html: '<toolbar/late>' },
    ]);
    expect(rendered.find((r) => r.name === 'toolbar/first')!.model).toEqual({
      value: 1,
      name: 'first',
      label: 'Block',
      panelUrl: '/_profiler/abc123?panel=first',
    });
    expect(rendered.find((r) => r.name === 'toolbar')!.model).toMatchObject({
      token: 'abc123',
      profileUrl: '/_profiler/abc123',
    });
  });

  it('shows a failing block as failed, logs why, and renders the others', () => {
    const collectors = [
      new Block('broken', 300, () => {
        throw new TypeError('no such field');
      }),
      new Block('fine', 200, () => ({})),
    ];
    const renderer = new ToolbarRenderer({ collectors } as never, views as never, logger as never);
    expect(JSON.parse(renderer.render(profile({ broken: { n: 1 }, fine: { n: 2 } })))).toEqual([
      { name: 'broken', status: 'warning', html: '<toolbar-failed>' },
      { name: 'fine', status: null, html: '<toolbar/fine>' },
    ]);
    expect(rendered.find((r) => r.name === 'toolbar-failed')!.model).toEqual({
      label: 'Block',
      panelUrl: '/_profiler/abc123?panel=broken',
      message: 'no such field',
    });
    expect(logged).toEqual([
      [
        400,
        'profiler',
        'The toolbar block of collector "{collector}" failed: {message}',
        { collector: 'broken', message: 'TypeError: no such field' },
      ],
    ]);
  });
});
