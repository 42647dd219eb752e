import { Injectable } from '@nestjs/common';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileSummary } from '../storage/profile-record.js';

/** How many earlier requests of the same method are looked through for the same route. */
const ROUTE_LOOKBACK = 200;

/** Finds what a profile is compared with when no second token is given: the request of its route before it. */
@Injectable()
export class ProfileComparer {
  constructor(private readonly profiler: ProfilerService) {}

  /**
   * The newest application request before this one with the same method and route (its route name, or its URL
   * when it matched none), among the last ROUTE_LOOKBACK of that method; null when there is none.
   */
  async previousOfRoute(record: ProfileSummary): Promise<ProfileSummary | null> {
    const { rows } = await this.profiler.find({
      method: record.method,
      end: record.time,
      kinds: ['application'],
      limit: ROUTE_LOOKBACK,
    });
    const sameRoute = (other: ProfileSummary) =>
      record.route === null ? other.route === null && other.url === record.url : other.route === record.route;
    return rows.find((other) => other.token !== record.token && other.time <= record.time && sameRoute(other)) ?? null;
  }
}
