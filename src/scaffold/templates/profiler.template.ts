import type { ModuleNames } from '../module-names.js';

export const profileTemplate = (
  n: ModuleNames,
): string => `import { contextKey } from '../../../lifecycle/kernel-context.js';

/** What one request did with the ${n.label.toLowerCase()}, as plain values. */
export interface ${n.pascal}Profile {
  /** The number of items when the controller ran (${n.pascal}CountListener), or null on other routes. */
  count: number | null;
  added: Array<{ id: number; name: string }>;
}

/** Where ${n.pascal}ProfileListener records, on the request's KernelContext, the items added. */
export const ${n.snake.toUpperCase()}_ADDED = contextKey<${n.pascal}Profile['added']>('${n.kebab}.added');
`;

export const profileListenerTemplate = (n: ModuleNames): string => `import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { currentKernelContext } from '../../../lifecycle/kernel-context.js';
import { ${n.pascal}ItemAddedEvent } from '../${n.kebab}-item-added.event.js';
import { ${n.snake.toUpperCase()}_ADDED } from './${n.kebab}-profile.js';

/**
 * The panel's side of the service: records the service's events on the current request's KernelContext. Outside a
 * request (a CLI, a seed, a unit test) it does nothing.
 */
@Injectable()
export class ${n.pascal}ProfileListener {
  @OnEvent(${n.pascal}ItemAddedEvent.NAME)
  onItemAdded(event: ${n.pascal}ItemAddedEvent): void {
    const context = currentKernelContext();
    if (!context) return;
    const added = context.get(${n.snake.toUpperCase()}_ADDED) ?? [];
    context.set(${n.snake.toUpperCase()}_ADDED, [...added, { id: event.id, name: event.name }]);
  }
}
`;

export const collectorTemplate = (n: ModuleNames): string => `import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../../lifecycle/kernel-context.js';
import { DataCollector, type PanelBadge, type ToolbarBlock } from '../../../profiler/collectors/data-collector.js';
import { ${n.snake.toUpperCase()}_COUNT } from '../${n.kebab}-count.listener.js';
import { ${n.snake.toUpperCase()}_ADDED, type ${n.pascal}Profile } from './${n.kebab}-profile.js';

/** At most this many added items are kept in a profile. */
const MAX_ROWS = 100;

/**
 * The ${n.label} panel (\`views/shop/${n.kebab}/profiler/panels/${n.kebab}.hbs\`) and toolbar block (\`…/toolbar/${n.kebab}.hbs\`):
 * the number of items when the controller ran and what the request added. It reads only what the request left
 * in its context, so it runs after the response has been sent (\`lateCollect\`, deferrable).
 */
@Injectable()
export class ${n.pascal}Collector extends DataCollector<${n.pascal}Profile> {
  readonly name = '${n.kebab}';
  readonly label = '${n.label}';
  override readonly deferrable = true;
  override readonly emptyText = 'This request did not use the ${n.label.toLowerCase()}.';

  override lateCollect(context: KernelContext): ${n.pascal}Profile | undefined {
    const count = context.request.attributes[${n.snake.toUpperCase()}_COUNT];
    const added = context.get(${n.snake.toUpperCase()}_ADDED);
    if (typeof count !== 'number' && !added) return undefined;
    return { count: typeof count === 'number' ? count : null, added: (added ?? []).slice(0, MAX_ROWS) };
  }

  override badge(data: ${n.pascal}Profile): PanelBadge {
    if (data.added.length > 0) return { text: \`+\${data.added.length}\`, kind: 'success' };
    return { text: String(data.count ?? 0), kind: 'info' };
  }

  /** The names of the items the request added: the search page's Text box finds the request by them. */
  override searchText(data: ${n.pascal}Profile): string[] {
    return data.added.map((item) => item.name);
  }

  override toolbar(data: ${n.pascal}Profile): ToolbarBlock {
    return {
      count: data.count ?? '',
      added: data.added.length,
      rows: [
        { label: 'Items', value: data.count === null ? '(not counted)' : String(data.count) },
        ...data.added.slice(0, 5).map((item) => ({ label: 'Added', value: item.name })),
      ],
    };
  }

  override panel(data: ${n.pascal}Profile): object {
    return {
      overview: [
        {
          key: 'Items when the controller ran',
          value: data.count === null ? '(not counted: not one of the module\\'s routes)' : String(data.count),
        },
        { key: 'Added by this request', value: String(data.added.length) },
      ],
      added: data.added,
    };
  }
}
`;
