import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DebugRoute, RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { ProfilerGate } from '../controllers/profiler-gate.js';
import { ProfilerService } from '../profiler.service.js';
import { ProfilerViews } from '../views/profiler-views.js';
import { send } from '../views/send-page.js';
import { ComparisonPage } from './comparison-page.js';
import { ProfileComparer } from './profile-comparer.js';

const TOKEN = /^[0-9a-f]{6}$/;

/**
 * The comparison of two profiles, `/_profiler/<a>/compare/<b>`; `/_profiler/<b>/compare/previous` compares b with
 * the request of its route before it; `/_profiler/compare?token=…&token=…` is where the search page's "Compare"
 * button leads. Declared before ProfilerController, so that `/_profiler/compare` is not taken for a token.
 */
@Controller('_profiler')
export class ComparisonController {
  constructor(
    private readonly gate: ProfilerGate,
    private readonly profiler: ProfilerService,
    private readonly comparer: ProfileComparer,
    private readonly page: ComparisonPage,
    private readonly views: ProfilerViews,
  ) {}

  @Get('compare')
  @RouteName('_profiler_compare_pick')
  @DebugRoute()
  pick(@Req() req: Request, @Query('token') picked: unknown, @Res() res: Response): void {
    this.gate.ensureEnabled(req);
    const tokens = (Array.isArray(picked) ? picked : [picked]).filter((t): t is string => typeof t === 'string');
    if (tokens.length !== 2 || !tokens.every((t) => TOKEN.test(t)) || tokens[0] === tokens[1]) {
      this.message(res, 400, 'Pick two profiles', 'Tick exactly two profiles in the list to compare them.');
      return;
    }
    // The list shows the newest first: the older of the two becomes A.
    res.redirect(302, `/_profiler/${tokens[1]}/compare/${tokens[0]}`);
  }

  @Get(':token/compare/:other')
  @RouteName('_profiler_compare')
  @DebugRoute()
  async compare(
    @Req() req: Request,
    @Param('token') token: string,
    @Param('other') other: string,
    @Res() res: Response,
  ): Promise<void> {
    this.gate.ensureEnabled(req);
    if (other === 'previous') return this.previous(token, res);
    const [a, b] = await Promise.all([this.load(token), this.load(other)]);
    const missing = [a ? null : token, b ? null : other].filter((t) => t !== null);
    if (!a || !b) {
      this.message(
        res,
        404,
        'Token not found',
        `No profile ${missing.map((t) => `"${t}"`).join(' nor ')} in the store.`,
      );
      return;
    }
    send(res, 200, this.page.render(a, b));
  }

  private async previous(token: string, res: Response): Promise<void> {
    const profile = await this.load(token);
    if (!profile) {
      this.message(res, 404, 'Token not found', `No profile "${token}" in the store.`);
      return;
    }
    const previous = await this.comparer.previousOfRoute(profile);
    if (!previous) {
      const what = profile.route ? `route ${profile.route}` : profile.url;
      this.message(
        res,
        404,
        'Nothing to compare with',
        `No ${profile.method} request of ${what} was profiled before ${token}.`,
      );
      return;
    }
    res.redirect(302, `/_profiler/${previous.token}/compare/${token}`);
  }

  private load(token: string) {
    return TOKEN.test(token) ? this.profiler.load(token) : Promise.resolve(null);
  }

  private message(res: Response, status: number, heading: string, text: string): void {
    send(res, status, this.views.page('message', { title: heading, heading, text }));
  }
}
