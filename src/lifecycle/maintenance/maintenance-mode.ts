import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { access } from 'node:fs/promises';
import { AppConfig } from '../../config/app-config.js';

/**
 * Whether the shop is in maintenance: MAINTENANCE=1, or the maintenance file (MAINTENANCE_FILE, default
 * var/maintenance) exists. The file is checked off the request path, once a second, so that `touch
 * var/maintenance` switches a running instance without a restart and no request ever waits on the disk.
 */
@Injectable()
export class MaintenanceMode implements OnModuleInit, OnModuleDestroy {
  private fileExists = false;
  private timer?: NodeJS.Timeout;

  constructor(private readonly config: AppConfig) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  isEnabled(): boolean {
    return this.config.maintenance.enabled || this.fileExists;
  }

  async refresh(): Promise<boolean> {
    try {
      await access(this.config.maintenance.file);
      this.fileExists = true;
    } catch {
      this.fileExists = false;
    }
    return this.isEnabled();
  }
}
