import { Body, Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { DebugRoute, RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { formFields, ProfilerGate } from '../controllers/profiler-gate.js';
import { ProfilerService } from '../profiler.service.js';
import { ProfilerViews } from '../views/profiler-views.js';
import { send } from '../views/send-page.js';
import { ReplayForms, REPLAYABLE_METHODS } from './replay-forms.js';
import { ReplayFailure, RequestReplayer } from './request-replayer.js';

const TOKEN = /^[0-9a-f]{6}$/;
/** How long the replay waits for the new request's profile to be complete, once it has answered. */
const PROFILE_WAIT_MS = 2000;

/**
 * `POST /_profiler/<token>/replay` (the profile page's Replay button, `_token` its CSRF token): the recorded GET or
 * HEAD is sent again to this application, and the comparison of the two profiles opens (303). A profiler route
 * like the others (DebugRoute, ProfilerGate); another site's page and a form without its token are refused (403).
 */
@Controller('_profiler')
export class ReplayController {
  constructor(
    private readonly gate: ProfilerGate,
    private readonly profiler: ProfilerService,
    private readonly forms: ReplayForms,
    private readonly replayer: RequestReplayer,
    private readonly views: ProfilerViews,
  ) {}

  @Post(':token/replay')
  @RouteName('_profiler_replay')
  @DebugRoute()
  async replay(
    @Req() req: Request,
    @Param('token') token: string,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    this.gate.ensureEnabled(req);
    const fields = formFields(body);
    if (!TOKEN.test(token) || !this.forms.verify(token, fields._token))
      throw new AccessDeniedHttpException('Invalid CSRF token: open the profile again and use its Replay button.');
    const profile = await this.profiler.load(token);
    if (!profile) return this.message(res, 404, 'Token not found', `No profile "${token}" in the store.`);
    if (!REPLAYABLE_METHODS.has(profile.method))
      return this.message(
        res,
        422,
        'Not replayed',
        `Only GET and HEAD requests are replayed: a ${profile.method} may change something. Copy it as cURL instead.`,
      );
    const socket = req.socket;
    try {
      const replayed = await this.replayer.replay(profile, { address: socket.localAddress!, port: socket.localPort! });
      await this.profiler.loadWhenComplete(replayed, PROFILE_WAIT_MS);
      res.redirect(303, `/_profiler/${token}/compare/${replayed}`);
    } catch (error) {
      if (!(error instanceof ReplayFailure)) throw error;
      this.message(res, error.status, error.status === 422 ? 'Not replayed' : 'Replay failed', error.message);
    }
  }

  private message(res: Response, status: number, heading: string, text: string): void {
    send(res, status, this.views.page('message', { title: heading, heading, text }));
  }
}
