import type { KernelContext } from '../../lifecycle/kernel-context.js';
import type { ResponseHandle } from '../../lifecycle/http/response-handle.js';
import type { ProfileRecord } from '../storage/profile-record.js';

export type BadgeKind = 'error' | 'warning' | 'success' | 'info';

/** A number or marker next to a panel's name in the profile menu. */
export interface PanelBadge {
  text: string;
  kind: BadgeKind;
}

/**
 * The view model of a collector's block in the debug toolbar (views/profiler/toolbar/<name>.hbs); `status` colours
 * the block (a failing or slow request, a warning).
 */
export interface ToolbarBlock {
  status?: BadgeKind | null;
  [key: string]: unknown;
}

/** A bar of the Performance timeline; times in milliseconds since the request entered the kernel. */
export interface TimelineBar {
  name: string;
  category: string;
  start: number;
  duration: number;
}

/** What a panel is rendered from: the stored profile and the page's query (panel filters). */
export interface PanelRequest {
  profile: ProfileRecord;
  query: Record<string, string | undefined>;
  /** What an action posted from the panel answered (the Database panel's EXPLAIN), shown in the panel it came from. */
  result?: unknown;
}

/**
 * One kind of data the profiler records for each request, and its panel. A collector is a Nest provider that
 * extends this class: the profiler finds every one in the application (see ProfilerService), so a module adds a
 * panel by declaring its collector as a provider and writing views/profiler/panels/<name>.hbs, and a block of the
 * debug toolbar by implementing `toolbar()` and writing views/profiler/toolbar/<name>.hbs.
 *
 * Collecting must stay cheap: keep references and plain values; format, map and excerpt in `panel()`, which
 * runs only when somebody opens the panel.
 */
export abstract class DataCollector<Data = unknown> {
  /** The key of the data in the profile, the `?panel=` value and the template name. */
  abstract readonly name: string;
  /** The panel's title in the menu. */
  abstract readonly label: string;
  /** Position in the menu (higher first); equal priorities keep registration order. */
  readonly priority: number = 0;
  /** What the panel says when the profile has no data for it. */
  readonly emptyText: string = 'Nothing was collected for this panel.';

  /**
   * At kernel.response, before the profiler's headers are set and the toolbar is injected: only for what must be
   * read from the response before later listeners change it (it delays the response; prefer `lateCollect`).
   */
  collect?(context: KernelContext, response: ResponseHandle): Data | undefined;

  /** At kernel.terminate, after the response was sent; receives what `collect` returned. */
  lateCollect?(context: KernelContext, collected: Data | undefined): Data | undefined;

  /**
   * Whether `lateCollect` may run a few milliseconds after kernel.terminate, in a batch with other requests'
   * (LateCollection: cheaper). Only for a collector that reads what the request left in its context (its request
   * and response, its logs and listener calls, cut where they ended at kernel.terminate, its own extensions, its
   * time then as `Profile.cut.elapsed`): nothing that goes on changing, such as the clock or the heap.
   */
  readonly deferrable: boolean = false;

  /**
   * Bars this collector adds to the Performance timeline (queries, HTTP calls, …), read at kernel.terminate;
   * the category names the bar's colour class (`tl-<category>`).
   */
  timeline?(context: KernelContext): TimelineBar[];

  /**
   * For a collector that stores a compact form (indexes, numbers, references to another collector's data) rather
   * than what its panel reads: turns the stored value back into `Data` when a profile is loaded (panels, the
   * `.json` export), never while collecting. `record` is the whole profile as stored.
   */
  expand?(stored: unknown, record: ProfileRecord): Data;

  /** Whether the profile has something for this panel: without, the menu shows it dimmed and the panel its `emptyText`. */
  hasData(data: Data | undefined): boolean {
    return data !== undefined;
  }

  badge(_data: Data): PanelBadge | null {
    return null;
  }

  /** Position in the toolbar (higher first); the menu's by default. */
  get toolbarPriority(): number {
    return this.priority;
  }

  /**
   * The toolbar block's view model, read from the stored profile when the toolbar is shown (never while
   * collecting); null for no block. Only called when `hasData`.
   */
  toolbar?(data: Data, profile: ProfileRecord): ToolbarBlock | null;

  /**
   * What a full-text search finds the request by in this collector's data as collected (ProfileRecord.text):
   * messages, names, statements; from the data, so redacted as it is. None by default.
   */
  searchText?(data: Data): string[];

  /** The panel template's view model. */
  panel(data: Data, _request: PanelRequest): object | Promise<object> {
    return data as object;
  }
}
