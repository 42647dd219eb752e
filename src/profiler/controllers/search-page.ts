import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { classOf, messageOf } from '../../lifecycle/errors/exception-status.js';
import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { formatBytes, statusClass } from '../collectors/response.collector.js';
import { ProfilerService } from '../profiler.service.js';
import {
  PROFILE_KINDS,
  type ProfileKind,
  type ProfileSearchCriteria,
  type ProfileSearchResult,
} from '../storage/profile-record.js';
import { formTime, listTime } from '../views/profile-time.js';
import { matchCount } from '../views/figures.js';
import { COUNT_CAP } from '../storage/search-helpers.js';
import { ProfilerViews, type RenderedPage } from '../views/profiler-views.js';
import { parseFormTime, SearchQueryDto } from './search-query.dto.js';
import { matchExcerpt, type MatchExcerpt } from './search-matches.js';
import { queryTerms } from '../storage/search/search-words.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const LIMITS = [10, 50, 100];

/**
 * The Profile Search page: the form, the count of matches and of the requests left out (the profiler's own and
 * static assets, unless their switch is on), and the rows with their duration and route.
 */
@Injectable()
export class SearchPage {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly views: ProfilerViews,
    private readonly config: AppConfig,
  ) {}

  async render(query: SearchQueryDto): Promise<RenderedPage> {
    const criteria = toCriteria(query);
    const kinds = listedKinds(query, criteria);
    // A failing store still gets its page: how many profiles wait for it and how many were dropped.
    let result: ProfileSearchResult = { total: 0, rows: [] };
    let leftOut: LeftOut | null = null;
    let searchError: string | undefined;
    try {
      result = await this.profiler.find({ ...criteria, kinds });
      leftOut = await this.leftOut(criteria, kinds, query);
    } catch (error) {
      searchError = `${classOf(error)}: ${messageOf(error)}`;
    }
    const matches = await this.matches(criteria, result);
    const stats = await this.profiler.stats();
    const slowMs = this.config.profiler.slowRequestMs;
    return this.views.page('search', {
      title: 'Profile Search',
      storeError: searchError ?? stats.storeError,
      total: matchCount(result.total, result.atLeast),
      leftOut,
      more: result.total > result.rows.length,
      comparable: result.rows.length > 1,
      rows: result.rows.map((row, i) => ({
        ...row,
        match: matches[i] ?? null,
        statusClass: row.statusCode ? statusClass(row.statusCode) : 'none',
        time: listTime(row.time),
        duration: row.duration === null ? null : row.duration.toFixed(1),
        slow: row.duration !== null && row.duration >= slowMs,
      })),
      stats: {
        ...stats,
        stored: stats.stored === null ? null : matchCount(stats.stored),
        size: stats.bytes === null ? null : formatBytes(stats.bytes),
      },
      form: {
        ...query,
        start: criteria.start === undefined ? '' : formTime(criteria.start),
        end: criteria.end === undefined ? '' : formTime(criteria.end),
        methods: [
          { value: '', label: 'Any', selected: !criteria.method },
          ...METHODS.map((m) => ({ value: m, label: m, selected: criteria.method === m })),
        ],
        limits: LIMITS.map((value) => ({ value, selected: value === criteria.limit })),
        profiler: isOn(query.profiler),
        assets: isOn(query.assets),
        allKinds: kinds === undefined && (criteria.url !== undefined || criteria.token !== undefined),
      },
    });
  }

  /** For a full-text search, where each row matched (the text holding the words, marked). */
  private async matches(
    criteria: ProfileSearchCriteria,
    result: ProfileSearchResult,
  ): Promise<(MatchExcerpt | null)[]> {
    const terms = criteria.text === undefined ? null : queryTerms(criteria.text);
    if (!terms || result.rows.length === 0) return [];
    return Promise.all(result.rows.map(async (row) => matchExcerpt(await this.profiler.searchTexts(row.token), terms)));
  }

  /** How many matches each hidden kind holds, with the link that lists them too; null when nothing is hidden. */
  private async leftOut(
    criteria: ProfileSearchCriteria,
    kinds: ProfileKind[] | undefined,
    query: SearchQueryDto,
  ): Promise<LeftOut | null> {
    if (kinds === undefined) return null;
    const hidden = HIDDEN_KINDS.filter(({ kind }) => !kinds.includes(kind));
    const counts = await Promise.all(
      hidden.map(({ kind }) => this.profiler.find({ ...criteria, kinds: [kind], limit: 0 })),
    );
    const parts = hidden
      .map(({ kind, one, many, param }, i) => ({
        kind,
        count: counts[i].total,
        shown: matchCount(counts[i].total, counts[i].atLeast),
        label: counts[i].total === 1 ? one : many,
        href: searchUrl(query, { [param]: '1' }),
      }))
      .filter((part) => part.count > 0);
    if (parts.length === 0) return null;
    return {
      parts,
      total: matchCount(
        Math.min(
          COUNT_CAP + 1,
          parts.reduce((sum, p) => sum + p.count, 0),
        ),
      ),
      showAll: parts.length > 1 ? searchUrl(query, { profiler: '1', assets: '1' }) : null,
    };
  }
}

interface LeftOut {
  parts: { kind: ProfileKind; count: number; shown: string; label: string; href: string }[];
  total: string;
  showAll: string | null;
}

/** The kinds the list leaves out unless its switch is on: the profiler's own requests and static assets. */
const HIDDEN_KINDS: { kind: ProfileKind; param: 'profiler' | 'assets'; one: string; many: string }[] = [
  { kind: 'profiler', param: 'profiler', one: 'profiler request', many: 'profiler requests' },
  { kind: 'asset', param: 'assets', one: 'asset', many: 'assets' },
];

function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'on';
}

/**
 * The kinds a search lists: the application's requests, and those whose switch is on; every kind (undefined) when
 * all switches are on, or for a URL or token filter (whoever types one wants what matches it).
 */
function listedKinds(query: SearchQueryDto, criteria: ProfileSearchCriteria): ProfileKind[] | undefined {
  if (criteria.url !== undefined || criteria.token !== undefined) return undefined;
  const kinds: ProfileKind[] = [
    'application',
    ...HIDDEN_KINDS.filter(({ param }) => isOn(query[param])).map(({ kind }) => kind),
  ];
  return kinds.length === PROFILE_KINDS.length ? undefined : kinds;
}

/** The search page's URL for the same query with some parameters changed. */
function searchUrl(query: SearchQueryDto, changes: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes }))
    if (typeof value === 'string' && value !== '') params.set(key, value);
  if (!params.has('limit')) params.set('limit', '10');
  return `/_profiler/search?${params}`;
}

function toCriteria(query: SearchQueryDto): ProfileSearchCriteria {
  const start = parseFormTime(query.start, 'start');
  const end = parseFormTime(query.end, 'end');
  if (Number.isNaN(start)) throw new BadRequestHttpException(`start "${query.start}" is not a date that exists.`);
  if (Number.isNaN(end)) throw new BadRequestHttpException(`end "${query.end}" is not a date that exists.`);
  return {
    ip: query.ip || undefined,
    method: query.method ? query.method.toUpperCase() : undefined,
    statusCode: query.status_code || undefined,
    url: query.url || undefined,
    token: query.token || undefined,
    text: query.q?.trim() || undefined,
    start,
    end,
    limit: query.limit ? Number(query.limit) : 10,
  };
}
