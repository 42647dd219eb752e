import type { DatabaseData } from '../database/database.collector.js';
import type { ExceptionData } from './collectors/exception.collector.js';
import type { LogsData } from './collectors/logs.collector.js';
import type { MemoryData } from './collectors/memory.collector.js';
import type { PerformanceData } from './collectors/performance.collector.js';
import type { RequestData } from './collectors/request.collector.js';
import type { ResponseData } from './collectors/response.collector.js';
import type { ProfileRecord } from './storage/profile-record.js';

/** A loaded profile's collector data, by name, typed as the collectors write it (absent when not collected). */
export interface ProfileParts {
  request?: RequestData;
  response?: ResponseData;
  exception?: ExceptionData;
  logs?: LogsData;
  performance?: PerformanceData;
  memory?: MemoryData;
  database?: DatabaseData;
}

export function partsOf(record: ProfileRecord): ProfileParts {
  return record.data as ProfileParts;
}
