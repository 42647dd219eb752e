import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { DebugRoute, RouteName, TrailingSlash } from '../../lifecycle/routing/route-name.decorator.js';
import { ProfilerService } from '../profiler.service.js';
import { ProfilerViews } from '../views/profiler-views.js';
import { send } from '../views/send-page.js';
import { SearchQueryDto } from './search-query.dto.js';
import { ProfilePage } from './profile-page.js';
import { SearchPage } from './search-page.js';
import { SourceFilePage } from './source-file-page.js';
import { ProfilerGate } from './profiler-gate.js';
import { ToolbarAssets, type ToolbarAsset } from '../toolbar/toolbar-assets.js';
import { ToolbarRenderer } from '../toolbar/toolbar-renderer.js';

const TOKEN = /^[0-9a-f]{6}$/;
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
    private readonly searchPage: SearchPage,
    private readonly gate: ProfilerGate,
    private readonly assets: ToolbarAssets,
    private readonly toolbars: ToolbarRenderer,
    private readonly sourceFiles: SourceFilePage,
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
    send(res, 200, await this.searchPage.render(query));
  }

  @Get('latest')
  @RouteName('_profiler_latest')
  @DebugRoute()
  async latest(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.ensureEnabled(req);
    const latest = await this.profiler.latest();
    if (!latest) {
      send(
        res,
        200,
        this.views.page('message', {
          title: 'No profiles',
          heading: 'There are no profiles',
          text: 'No profiles found: nothing has been recorded yet, or retention removed everything.',
        }),
      );
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
    res.setHeader(
      'Cache-Control',
      req.query.v === asset.url.slice(asset.url.indexOf('?v=') + 3)
        ? 'private, max-age=31536000, immutable'
        : 'no-cache',
    );
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
  async toolbar(
    @Req() req: Request,
    @Headers('x-debug-toolbar-of') token: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
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

  /** A project file at a line: where file:line links lead without PROFILER_EDITOR. */
  @Get('open')
  @RouteName('_profiler_open')
  @DebugRoute()
  open(@Req() req: Request, @Query('file') file: unknown, @Query('line') line: unknown, @Res() res: Response): void {
    this.ensureEnabled(req);
    send(res, 200, this.sourceFiles.render(file, line));
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
  async panel(
    @Req() req: Request,
    @Param('token') token: string,
    @Query('panel') panel: unknown,
    @Res() res: Response,
  ): Promise<void> {
    this.ensureEnabled(req);
    if (!TOKEN.test(token)) {
      send(
        res,
        404,
        this.views.page('message', {
          title: 'Token not found',
          heading: 'Token not found',
          text: `"${token}" is not a profile token: a token is 6 lowercase hexadecimal characters.`,
        }),
      );
      return;
    }
    const profile = await this.profiler.load(token);
    if (!profile) {
      send(
        res,
        404,
        this.views.page('message', {
          title: 'Token not found',
          heading: 'Token not found',
          text: `Token "${token}" not found.`,
        }),
      );
      return;
    }
    const query = Object.fromEntries(
      Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]),
    );
    send(
      res,
      200,
      await this.pages.render(profile, typeof panel === 'string' && panel !== '' ? panel : undefined, query),
    );
  }

  private ensureEnabled(req: Request): void {
    this.gate.ensureEnabled(req);
  }
}
