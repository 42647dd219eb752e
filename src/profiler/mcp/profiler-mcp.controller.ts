import { All, Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MethodNotAllowedHttpException } from '../../lifecycle/exceptions/method-not-allowed-http.exception.js';
import { contextOf } from '../../lifecycle/kernel-symbols.js';
import { DebugRoute, RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { ProfilerGate } from '../controllers/profiler-gate.js';
import { mcpSdk } from './mcp-sdk.js';
import { ProfilerMcpServer } from './profiler-mcp.server.js';

/**
 * The profiler's MCP endpoint, `POST /_profiler/mcp` (Streamable HTTP, stateless: a server per request, JSON
 * answers, no session). It exists only where the profiler's pages do (ProfilerGate), and a browser page of another
 * site cannot call it (Origin, Sec-Fetch-Site), so that a visited page cannot read profiles through it.
 */
@Controller('_profiler/mcp')
export class ProfilerMcpController {
  constructor(
    private readonly gate: ProfilerGate,
    private readonly servers: ProfilerMcpServer,
  ) {}

  @Post()
  @RouteName('_profiler_mcp')
  @DebugRoute()
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.gate.ensureEnabled(req);
    const request = contextOf(req)!.request;
    const server = await this.servers.create({ baseUrl: request.schemeAndHttpHost });
    const { StreamableHTTPServerTransport } = await mcpSdk();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** No server-sent event stream and no session to end: stateless servers answer 405, which clients expect. */
  @All()
  @RouteName('_profiler_mcp_other')
  @DebugRoute()
  other(@Req() req: Request): never {
    this.gate.ensureEnabled(req);
    throw new MethodNotAllowedHttpException(['POST']);
  }
}
