import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?|\d{9,11})?$/;

/** The search form's fields: every one optional, an empty value means "any". */
export class SearchQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(45)
  @Matches(/^[0-9a-fA-F:.]*$/, { message: 'ip must be (the start of) an IPv4 or IPv6 address' })
  ip?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{0,16}$/, { message: 'method must be an HTTP method' })
  method?: string;

  @IsOptional()
  @IsString()
  @Matches(/^([1-5]\d{0,2})?$/, { message: 'status_code must be a status code (or its first digits), 1 to 599' })
  status_code?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  /** Full-text: words of the requests' logs, exceptions, SQL, route and controller (ProfileSearchCriteria.text). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f]{0,6}$/, { message: 'token must be up to 6 lowercase hexadecimal characters' })
  token?: string;

  @IsOptional()
  @IsString()
  @Matches(DATE_TIME, {
    message: 'start must be a date (YYYY-MM-DD), a date and time (YYYY-MM-DDTHH:MM[:SS]) or a Unix time',
  })
  start?: string;

  @IsOptional()
  @IsString()
  @Matches(DATE_TIME, {
    message: 'end must be a date (YYYY-MM-DD), a date and time (YYYY-MM-DDTHH:MM[:SS]) or a Unix time',
  })
  end?: string;

  @IsOptional()
  @IsString()
  @IsIn(['', '10', '50', '100'], { message: 'limit must be 10, 50 or 100' })
  limit?: string;

  /** Switch: list the profiler's own requests too (a URL or token filter lists every kind anyway). */
  @IsOptional()
  @IsString()
  @IsIn(['', '0', '1', 'on'], { message: "profiler must be 1 (list the profiler's requests) or empty" })
  profiler?: string;

  /** Switch: list static assets (images, fonts, stylesheets, scripts) too. */
  @IsOptional()
  @IsString()
  @IsIn(['', '0', '1', 'on'], { message: 'assets must be 1 (list static assets) or empty' })
  assets?: string;
}

/**
 * A form date (local time) as milliseconds since the epoch; a bare date is its first or last millisecond. NaN for
 * a date that does not exist.
 */
export function parseFormTime(value: string | undefined, edge: 'start' | 'end'): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000 + (edge === 'end' ? 999 : 0);
  const [date, time] = value.split(/[T ]/);
  const [y, m, d] = date.split('-').map(Number);
  // Date would roll 2026-02-31 over into March: such a date is refused instead.
  const probe = new Date(y, m - 1, d);
  if (probe.getFullYear() !== y || probe.getMonth() !== m - 1 || probe.getDate() !== d) return Number.NaN;
  if (time === undefined) {
    return edge === 'start' ? new Date(y, m - 1, d).getTime() : new Date(y, m - 1, d, 23, 59, 59, 999).getTime();
  }
  const [hh, mm, ss] = time.split(':').map(Number);
  if (hh > 23 || mm > 59 || (ss ?? 0) > 59) return Number.NaN;
  return new Date(y, m - 1, d, hh, mm, ss ?? (edge === 'end' ? 59 : 0), edge === 'end' ? 999 : 0).getTime();
}
