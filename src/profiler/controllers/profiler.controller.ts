import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { ResourceNotFoundException } from '../../lifecycle/exceptions/resource-not-found.exception.js';
import { KERNEL_CONTEXT } from '../../lifecycle/kernel-symbols.js';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { noRouteMessage } from '../../lifecycle/routing/no-route-found.js';
import { DebugRoute, RouteName, TrailingSlash } from '../../lifecycle/routing/route-name.decorator.js';
import { formatBytes, statusClass } from '../collectors/response.collector.js';
import { ProfilerService } from '../profiler.service.js';
import { PROFILE_KINDS, type ProfileKind, type ProfileSearchCriteria, type ProfileSearchResult } from '../storage/profile-record.js';
import { AppConfig } from '../../config/app-config.js';
import { classOf, messageOf } from '../../lifecycle/errors/exception-status.js';
import { ProfilerViews, type RenderedPage } from '../views/profiler-views.js';
import { ProfilePage } from './profile-page.js';
import { formTime, listTime } from '../views/profile-time.js';
import { parseFormTime, SearchQueryDto } from './search-query.dto.js';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { ToolbarAssets, type ToolbarAsset } from '../toolbar/toolbar-assets.js';
import { ToolbarRenderer } from '../toolbar/toolbar-renderer.js';

const TOKEN = /^[0-9a-f]{6}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const LIMITS = [10, 50, 100];
/** How long the toolbar waits for the profile of a page whose request is still finishing. */
const TOOLBAR_WAIT_MS = 2000;

/**
 * The profiler's pages: `/_profiler/` (→ the search), the Profile Search page, `/_profiler/latest`, a profile's
 * panels at `/_profiler/<token>` (route `_profiler`) and its JSON export. With the profiler off (APP_DEBUG=0),
 * every one answers as if it did not exist.
 */
@Controller('_profiler')
export class ProfilerController {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly views: ProfilerViews,
    private readonly pages: ProfilePage,
    private readonly access: DebugAccess,
    private readonly assets: ToolbarAssets,
    private readonly toolbars: ToolbarRenderer,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @TrailingSlash()
  @RouteName('_profiler_home')
  @DebugRoute()
  home(@Req() req: Request, @Res() res: Response): void {
    this.ensureEnabled(req);
    res.redirect(302, '/_profiler/search?limit=10');
  }

  @Get('search')
  @RouteName('_profiler_search')
  @DebugRoute()
  async search(@Req() req: Request, @Query() query: SearchQueryDto, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
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
    const stats = await this.profiler.stats();
    const slowMs = this.config.profiler.slowRequestMs;
    const page = this.views.page('search', {
      title: 'Profile Search',
      storeError: searchError ?? stats.storeError,
      total: result.total,
      leftOut,
      more: result.total > result.rows.length,
      rows: result.rows.map((row) => ({
        ...row,
        statusClass: row.statusCode ? statusClass(row.statusCode) : 'none',
        time: listTime(row.time),
        duration: row.duration === null ? null : row.duration.toFixed(1),
        slow: row.duration !== null && row.duration >= slowMs,
      })),
      stats: { ...stats, size: stats.bytes === null ? null : formatBytes(stats.bytes) },
      form: {
        ...query,
        start: criteria.start === undefined ? '' : formTime(criteria.start),
        end: criteria.end === undefined ? '' : formTime(criteria.end),
        methods: [{ value: '', label: 'Any', selected: !criteria.method }, ...METHODS.map((m) => ({ value: m, label: m, selected: criteria.method === m }))],
        limits: LIMITS.map((value) => ({ value, selected: value === criteria.limit })),
        profiler: isOn(query.profiler),
        assets: isOn(query.assets),
        allKinds: kinds === undefined && (criteria.url !== undefined || criteria.token !== undefined),
      },
    });
    send(res, 200, page);
  }

  /** How many matches each hidden kind holds, with the link that lists them too; null when nothing is hidden. */
  private async leftOut(criteria: ProfileSearchCriteria, kinds: ProfileKind[] | undefined, query: SearchQueryDto): Promise<LeftOut | null> {
    if (kinds === undefined) return null;
    const hidden = HIDDEN_KINDS.filter(({ kind }) => !kinds.includes(kind));
    const counts = await Promise.all(hidden.map(({ kind }) => this.profiler.find({ ...criteria, kinds: [kind], limit: 0 })));
    const parts = hidden
      .map(({ kind, one, many, param }, i) => ({ kind, count: counts[i].total, label: counts[i].total === 1 ? one : many, href: searchUrl(query, { [param]: '1' }) }))
      .filter((part) => part.count > 0);
    if (parts.length === 0) return null;
    return { parts, total: parts.reduce((sum, p) => sum + p.count, 0), showAll: parts.length > 1 ? searchUrl(query, { profiler: '1', assets: '1' }) : null };
  }

  @Get('latest')
  @RouteName('_profiler_latest')
  @DebugRoute()
  async latest(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
    const latest = await this.profiler.latest();
    if (!latest) {
      send(res, 200, this.views.page('message', { title: 'No profiles', heading: 'There are no profiles', text: 'No profiles found: nothing has been recorded yet, or retention removed everything.' }));
      return;
    }
    const panel = typeof req.query.panel === 'string' ? `?panel=${encodeURIComponent(req.query.panel)}` : '';
    res.redirect(302, `/_profiler/${latest.token}${panel}`);
  }

  /** The toolbar's script and stylesheet; their URL holds their hash, so a browser keeps them until they change. */
  @Get('toolbar.js')
  @RouteName('_profiler_toolbar_js')
  @DebugRoute()
  script(@Req() req: Request, @Res() res: Response): void {
    this.sendAsset(req, res, this.assets.script);
  }

  @Get('toolbar.css')
  @RouteName('_profiler_toolbar_css')
  @DebugRoute()
  stylesheet(@Req() req: Request, @Res() res: Response): void {
    this.sendAsset(req, res, this.assets.stylesheet);
  }

  private sendAsset(req: Request, res: Response, asset: ToolbarAsset): void {
    this.ensureEnabled(req);
    res.status(200);
    res.setHeader('Content-Type', asset.contentType);
    res.setHeader('Cache-Control', req.query.v === asset.url.slice(asset.url.indexOf('?v=') + 3) ? 'private, max-age=31536000, immutable' : 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(asset.body);
  }

  /**
   * A profile's toolbar, as the toolbar's script fetches it once the page has loaded; the profile is named by the
   * `X-Debug-Toolbar-Of` header rather than in the URL, so that the store holds one URL for every toolbar fetched
   * (a URL per page view would multiply its distinct URLs, which URL searches read). 404 with an empty body for a
   * token not stored.
   */
  @Get('toolbar')
  @RouteName('_profiler_toolbar')
  @DebugRoute()
  async toolbar(@Req() req: Request, @Headers('x-debug-toolbar-of') token: string | undefined, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
    const profile = token && TOKEN.test(token) ? await this.profiler.loadWhenComplete(token, TOOLBAR_WAIT_MS) : null;
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'X-Debug-Toolbar-Of');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    if (!profile) {
      res.status(404).end();
      return;
    }
    res.status(200).setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(this.toolbars.render(profile));
  }

  @Get(':token.json')
  @RouteName('_profiler_export')
  @DebugRoute()
  async export(@Req() req: Request, @Param('token') token: string, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
    const profile = TOKEN.test(token) ? await this.profiler.load(token) : null;
    if (!profile) throw new NotFoundHttpException(`Token "${token}" not found.`);
    res.status(200).setHeader('Cache-Control', 'no-store');
    res.json({
      token: profile.token,
      parent: profile.parent,
      ip: profile.ip,
      method: profile.method,
      url: profile.url,
      time: new Date(profile.time).toISOString(),
      statusCode: profile.statusCode,
      collectors: profile.data,
    });
  }

  @Get(':token')
  @RouteName('_profiler')
  @DebugRoute()
  async panel(@Req() req: Request, @Param('token') token: string, @Query('panel') panel: unknown, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
    if (!TOKEN.test(token)) {
      send(res, 404, this.views.page('message', { title: 'Token not found', heading: 'Token not found', text: `"${token}" is not a profile token: a token is 6 lowercase hexadecimal characters.` }));
      return;
    }
    const profile = await this.profiler.load(token);
    if (!profile) {
      send(res, 404, this.views.page('message', { title: 'Token not found', heading: 'Token not found', text: `Token "${token}" not found.` }));
      return;
    }
    const query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
    send(res, 200, await this.pages.render(profile, typeof panel === 'string' && panel !== '' ? panel : undefined, query));
  }

  /**
   * With the profiler off, or for a client not allowed to see debug details (DebugAccess), its routes do not exist:
   * the router's own 404, word for word.
   */
  private ensureEnabled(req: Request): void {
    const request = ((req as any)[KERNEL_CONTEXT] as KernelContext).request;
    if (this.profiler.enabled && this.access.allows(request)) return;
    const path = request.pathInfo;
    throw new NotFoundHttpException(noRouteMessage(request), new ResourceNotFoundException(`No routes found for "${path.endsWith('/') ? path : `${path}/`}".`));
  }
}

function send(res: Response, status: number, page: RenderedPage): void {
  res.status(status);
  for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
  res.end(page.html);
}

interface LeftOut {
  parts: { kind: ProfileKind; count: number; label: string; href: string }[];
  total: number;
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
  const kinds: ProfileKind[] = ['application', ...HIDDEN_KINDS.filter(({ param }) => isOn(query[param])).map(({ kind }) => kind)];
  return kinds.length === PROFILE_KINDS.length ? undefined : kinds;
}

/** The search page's URL for the same query with some parameters changed. */
function searchUrl(query: SearchQueryDto, changes: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes })) if (typeof value === 'string' && value !== '') params.set(key, value);
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
    start,
    end,
    limit: query.limit ? Number(query.limit) : 10,
  };
}
