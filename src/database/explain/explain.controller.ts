import { Body, Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { DebugRoute, RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { ProfilePage } from '../../profiler/controllers/profile-page.js';
import { formFields, ProfilerGate } from '../../profiler/controllers/profiler-gate.js';
import { ProfilerService } from '../../profiler/profiler.service.js';
import { send } from '../../profiler/views/send-page.js';
import type { DatabaseData } from '../database.collector.js';
import { ExplainCsrf } from './explain-csrf.js';
import { QueryExplainer } from './query-explainer.js';

const TOKEN = /^[0-9a-f]{6}$/;
const NUMBER = /^[1-9]\d{0,5}$/;

/**
 * `POST /_profiler/<token>/explain`: the plan of one recorded SELECT (form fields `query`, its number in the
 * panel, and `_token`, ExplainCsrf's token), answered with the Database panel showing the plan under that query.
 * A profiler route like the others (DebugRoute, ProfilerGate); a browser's cross-site POST and a form without its
 * token are 403s, an unknown profile or query a 404, a statement that is not a single SELECT a 422.
 */
@Controller('_profiler')
export class ExplainController {
  constructor(
    private readonly gate: ProfilerGate,
    private readonly profiler: ProfilerService,
    private readonly pages: ProfilePage,
    private readonly explainer: QueryExplainer,
    private readonly csrf: ExplainCsrf,
  ) {}

  @Post(':token/explain')
  @RouteName('_profiler_explain')
  @DebugRoute()
  async explain(
    @Req() req: Request,
    @Param('token') token: string,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    this.gate.ensureEnabled(req);
    const fields = formFields(body);
    const number = typeof fields.query === 'string' && NUMBER.test(fields.query) ? Number(fields.query) : null;
    if (number === null)
      throw new BadRequestHttpException('The form names no query: "query" must be the number of a query of the panel.');
    if (!TOKEN.test(token) || !this.csrf.verify(token, number, fields._token)) {
      throw new AccessDeniedHttpException(
        'Invalid CSRF token: open the Database panel again and use its EXPLAIN button.',
      );
    }
    const profile = await this.profiler.load(token);
    if (!profile) throw new NotFoundHttpException(`Token "${token}" not found.`);
    const query = (profile.data.database as DatabaseData | undefined)?.queries[number - 1];
    if (!query) throw new NotFoundHttpException(`Profile "${token}" has no query #${number}.`);
    const plan = await this.explainer.explain(query.sql, query.params);
    send(res, 200, await this.pages.render(profile, 'database', {}, { explain: { number, ...plan } }));
  }
}
