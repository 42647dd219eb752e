import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ShopDb } from './shop-db.js';

/** Closes the connection (SQLite file, PostgreSQL pool) when the application shuts down. */
@Injectable()
export class DatabaseShutdown implements OnApplicationShutdown {
  constructor(private readonly db: ShopDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.destroy();
  }
}
