import type { INestApplication } from '@nestjs/common';
import { ProfilerService } from '../../src/profiler/profiler.service.js';
import type {
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSummary,
} from '../../src/profiler/storage/profile-record.js';

/** The profiler of a test app, with every waiting profile written first. */
export async function storedProfiles(
  app: INestApplication,
  criteria: Partial<ProfileSearchCriteria> = {},
): Promise<{ total: number; rows: ProfileSummary[] }> {
  const profiler = app.get(ProfilerService);
  await settle();
  // find() alone leaves the profiler's own pages to their batch.
  await profiler.flush();
  return profiler.find({ limit: 100, ...criteria });
}

/** A profile by token, once its request has terminated. */
export async function storedProfile(app: INestApplication, token: string): Promise<ProfileRecord> {
  const profiler = app.get(ProfilerService);
  for (let i = 0; i < 50; i++) {
    const profile = await profiler.load(token);
    if (profile) return profile;
    await settle();
  }
  throw new Error(`No profile ${token}`);
}

/** kernel.terminate runs when the response has been handed to the socket: a turn of the event loop later. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 10));
}
