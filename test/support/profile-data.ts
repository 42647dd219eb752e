/**
 * A stored profile's data as the tests read it: the collectors' JSON, typed as far as the tests look into it (the
 * collectors' own types describe what they write; these say what a test expects to find).
 */
export interface ProfileData {
  [collector: string]: unknown;
  events: { called: Array<{ event: string; listener: string; priority: number; duration: number }> };
  exception?: { exceptions: Array<{ class: string; message: string; statusCode?: number }> };
  database: { queries: Array<{ sql: string }> };
  cart?: Record<string, unknown>;
  request: {
    url: string;
    headers: Record<string, unknown>;
    cookies: unknown[];
    body: { parsed: unknown };
    query: Record<string, unknown>;
  };
  response: { headers: Record<string, unknown> };
}

/** The JSON of an exception chain, as the problem details and the profile's `exception` hold it. */
export interface ExceptionJson {
  class: string;
  message: string;
}

/** A profile's data (a ProfileRecord's `data`) read as ProfileData. */
export function profileData(record: { data: unknown }): ProfileData {
  return record.data as ProfileData;
}
