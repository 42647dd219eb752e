import { Injectable } from '@nestjs/common';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { classOf, messageOf } from '../../lifecycle/errors/exception-status.js';
import type { DataCollector, ToolbarBlock } from '../collectors/data-collector.js';
import { PROFILER_PATH } from '../profiler-path.js';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { ProfilerViews } from '../views/profiler-views.js';

/**
 * The toolbar of a stored profile (`/_profiler/toolbar`, fetched by the toolbar's script once the page has loaded):
 * a block per collector that has one (DataCollector.toolbar and views/profiler/toolbar/<name>.hbs), in
 * toolbar order, then the page's fetch and XHR calls (filled in by the script), the profile's link and the button
 * that hides the toolbar.
 */
@Injectable()
export class ToolbarRenderer {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly views: ProfilerViews,
    private readonly logger: KernelLogger,
  ) {}

  render(profile: ProfileRecord): string {
    const collectors = [...this.profiler.collectors].sort((a, b) => b.toolbarPriority - a.toolbarPriority);
    const blocks = collectors.flatMap((collector) => this.block(collector, profile) ?? []);
    return this.views.fragment('toolbar', {
      token: profile.token,
      profileUrl: `${PROFILER_PATH}/${profile.token}`,
      blocks,
    });
  }

  private block(
    collector: DataCollector,
    profile: ProfileRecord,
  ): { name: string; status: string | null; html: string } | null {
    const data = profile.data[collector.name];
    if (!collector.toolbar || !this.views.hasToolbarBlock(collector.name) || !collector.hasData(data)) return null;
    const panelUrl = `${PROFILER_PATH}/${profile.token}?panel=${encodeURIComponent(collector.name)}`;
    let model: ToolbarBlock | null;
    try {
      model = collector.toolbar(data, profile);
      if (!model) return null;
      return {
        name: collector.name,
        status: model.status ?? null,
        html: this.views.fragment(`toolbar/${collector.name}`, {
          ...model,
          name: collector.name,
          label: collector.label,
          panelUrl,
        }),
      };
    } catch (error) {
      // One failing block must not take the toolbar with it: it says so, and its panel is a click away.
      this.logger.record(LogLevel.ERROR, 'profiler', 'The toolbar block of collector "{collector}" failed: {message}', {
        collector: collector.name,
        message: `${classOf(error)}: ${messageOf(error)}`,
      });
      return {
        name: collector.name,
        status: 'warning',
        html: this.views.fragment('toolbar-failed', { label: collector.label, panelUrl, message: messageOf(error) }),
      };
    }
  }
}
