import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LogLevel, parseLogLevel } from '../../lifecycle/logging/log-level.js';
import { compareProfiles } from '../comparison/profile-comparison.js';
import { ProfileComparer } from '../comparison/profile-comparer.js';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileRecord, ProfileSummary } from '../storage/profile-record.js';
import { comparisonDigest } from './comparison-digest.js';
import { matchCount, ms } from '../views/figures.js';
import { ProfileDigests, type Digest } from './profile-digests.js';
import { mcpSdk } from './mcp-sdk.js';

const VERSION = '1.0.0';
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** Where the profiler's pages are, when the server knows (HTTP): its answers then link to them. */
export interface McpContext {
  baseUrl?: string;
}

/**
 * The profiler for coding assistants, over the Model Context Protocol: tools that search the stored profiles and
 * read one (summary, exception chain, logs, queries, timeline) or compare two, and every profile as a resource
 * `profile://<token>`. A new server per connection (stateless HTTP, or the stdio command); what it answers is the
 * stored, redacted data the panels show, in a few lines each.
 */
@Injectable()
export class ProfilerMcpServer {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly digests: ProfileDigests,
    private readonly comparer: ProfileComparer,
  ) {}

  async create(context: McpContext = {}): Promise<McpServer> {
    const [{ McpServer, z }, { serveProfileResources }] = await Promise.all([
      mcpSdk(),
      // It loads the SDK's protocol types: with it, only when an assistant connects.
      import('./profile-resources.js'),
    ]);
    const token = z
      .string()
      .regex(/^[0-9a-f]{6}$/, 'a profile token is 6 lowercase hexadecimal characters')
      .describe('The profile token (X-Debug-Token of the response), 6 hex characters');
    const server = new McpServer(
      { name: 'shopkernel-profiler', version: VERSION },
      {
        instructions:
          'Shopkernel request profiler: every HTTP request of the application is profiled. Start with search_profiles or ' +
          'latest_failure, then read a profile with get_profile, get_exception, get_logs, get_queries and get_timeline; ' +
          'compare_profiles explains why one request differs from another.',
      },
    );
    const link = (t: string) => (context.baseUrl ? `${context.baseUrl}/_profiler/${t}` : null);
    const answer = (digest: Digest, record?: ProfileSummary): CallToolResult => {
      const url = record ? link(record.token) : null;
      return {
        content: [{ type: 'text', text: url ? `${digest.text}\nProfile page: ${url}` : digest.text }],
        structuredContent: url ? { ...digest.data, profileUrl: url } : digest.data,
      };
    };
    const withProfile = async (t: string, read: (record: ProfileRecord) => Digest | Promise<Digest>) => {
      const record = await this.profiler.load(t);
      return record ? answer(await read(record), record) : missing(t);
    };
    const readOnly = { readOnlyHint: true, openWorldHint: false };

    server.registerTool(
      'search_profiles',
      {
        title: 'Search profiles',
        description:
          "The newest profiled requests matching the filters (the profiler's search page), newest first: token, method, status, URL, route, duration. " +
          '`text` finds requests by what they did: words of their log messages, exceptions, SQL, route, controller, outgoing calls or trace id.',
        inputSchema: {
          method: z
            .string()
            .regex(/^[A-Za-z]{1,16}$/)
            .optional()
            .describe('HTTP method, e.g. GET'),
          status: z
            .string()
            .regex(/^[1-5]\d{0,2}$/)
            .optional()
            .describe('Status code or its first digits: 404, 5 (5xx)'),
          text: z
            .string()
            .max(200)
            .optional()
            .describe(
              'Words the request logged, threw, queried or was routed to, all required: "insufficient stock", "delete from cart_lines", "CartQuantityException", a trace id; word* for a prefix',
            ),
          url: z.string().max(2048).optional().describe('Part of the URL, any case'),
          ip: z
            .string()
            .regex(/^[0-9a-fA-F:.]{1,45}$/)
            .optional()
            .describe('Client IP or its start'),
          token: z
            .string()
            .regex(/^[0-9a-f]{1,6}$/)
            .optional()
            .describe('A token or its start'),
          since: z.string().datetime({ offset: true }).optional().describe('At or after this ISO 8601 time'),
          until: z.string().datetime({ offset: true }).optional().describe('At or before this ISO 8601 time'),
          limit: z.number().int().min(1).max(50).default(10).describe('How many, at most 50'),
        },
        annotations: readOnly,
      },
      async ({ method, status, text, url, ip, token: prefix, since, until, limit }) => {
        const { total, atLeast, rows } = await this.profiler.find({
          text,
          method,
          statusCode: status,
          url,
          ip,
          token: prefix,
          start: since ? Date.parse(since) : undefined,
          end: until ? Date.parse(until) : undefined,
          kinds: ['application'],
          limit,
        });
        const lines = rows.map(
          (r) =>
            `${r.token} ${r.method} ${r.statusCode} ${r.url} (${r.route ?? 'no route'}) ${r.duration === null ? '' : ms(r.duration)} ${new Date(r.time).toISOString()}`,
        );
        const heading = `${matchCount(total, atLeast)} matching request${total === 1 ? '' : 's'}${total > rows.length ? `, the newest ${rows.length}` : ''}:`;
        return answer({
          text: rows.length === 0 ? 'No profiled request matches.' : [heading, ...lines].join('\n'),
          data: { total, profiles: rows.map((r) => ({ ...summaryOf(r), profileUrl: link(r.token) })) },
        });
      },
    );

    server.registerTool(
      'latest_failure',
      {
        title: 'Latest failed request',
        description:
          'The summary of the newest request that answered a server error (5xx), or any error (4xx too) when asked.',
        inputSchema: {
          include_client_errors: z.boolean().default(false).describe('Count 4xx answers as failures too'),
        },
        annotations: readOnly,
      },
      async ({ include_client_errors }) => {
        const newest = async (prefix: string) =>
          (await this.profiler.find({ statusCode: prefix, kinds: ['application'], limit: 1 })).rows[0];
        const found = [await newest('5'), include_client_errors ? await newest('4') : undefined]
          .filter((r): r is ProfileSummary => r !== undefined)
          .sort((x, y) => y.time - x.time)[0];
        if (!found)
          return answer({
            text: `No request answered ${include_client_errors ? '4xx or 5xx' : '5xx'} among the stored profiles.`,
            data: { found: false },
          });
        return withProfile(found.token, (record) => this.digests.summary(record));
      },
    );

    server.registerTool(
      'get_profile',
      {
        title: 'Profile summary',
        description:
          'One request: method, URL, status, route, controller, time, queries, log errors and warnings, the exception.',
        inputSchema: { token },
        annotations: readOnly,
      },
      ({ token: t }) => withProfile(t, (record) => this.digests.summary(record)),
    );

    server.registerTool(
      'get_exception',
      {
        title: 'Exception chain',
        description:
          "The request's exception chain, outermost first, with the application's frames mapped to the TypeScript source and the code around the line that threw.",
        inputSchema: {
          token,
          frames: z.number().int().min(1).max(30).default(8).describe('Application frames per exception'),
        },
        annotations: readOnly,
      },
      ({ token: t, frames }) => withProfile(t, (record) => this.digests.exception(record, frames)),
    );

    server.registerTool(
      'get_logs',
      {
        title: 'Log entries',
        description: "The request's log entries at a level or above (default warning), optionally of one channel.",
        inputSchema: {
          token,
          level: z.enum(LEVELS).default('warning').describe('The lowest level listed'),
          channel: z
            .string()
            .max(64)
            .optional()
            .describe('Only this channel: request, security, database, event, app...'),
          limit: z.number().int().min(1).max(200).default(50),
        },
        annotations: readOnly,
      },
      ({ token: t, level, channel, limit }) =>
        withProfile(t, (record) =>
          this.digests.logs(record, { minLevel: parseLogLevel(level) ?? LogLevel.WARNING, channel, limit }),
        ),
    );

    server.registerTool(
      'get_queries',
      {
        title: 'Database queries',
        description:
          "The request's SQL grouped by statement, slowest first, with their callers; repeated statements (a likely N+1 loop) and failures first.",
        inputSchema: { token, limit: z.number().int().min(1).max(50).default(15).describe('Statements listed') },
        annotations: readOnly,
      },
      ({ token: t, limit }) => withProfile(t, (record) => this.digests.queries(record, limit)),
    );

    server.registerTool(
      'get_timeline',
      {
        title: 'Timeline',
        description:
          'Where the time went: each kernel event, the controller, queries, templates, the slowest listeners.',
        inputSchema: { token },
        annotations: readOnly,
      },
      ({ token: t }) => withProfile(t, (record) => this.digests.timeline(record)),
    );

    server.registerTool(
      'compare_profiles',
      {
        title: 'Compare two profiles',
        description:
          'What changed from request a to request b: time per event, listener and controller, memory, queries added, removed and changed, log entries, status and headers. Without b, the previous request of the same route and method is compared with a.',
        inputSchema: {
          a: token,
          b: token
            .optional()
            .describe(
              'The second profile (default: the previous request of the same route becomes a, and a becomes b)',
            ),
        },
        annotations: readOnly,
      },
      async ({ a, b }) => {
        const first = await this.profiler.load(a);
        if (!first) return missing(a);
        const second = b ? await this.profiler.load(b) : null;
        if (b && !second) return missing(b);
        let older = first;
        let newer = second ?? first;
        if (!second) {
          const previous = await this.comparer.previousOfRoute(first);
          const loaded = previous && (await this.profiler.load(previous.token));
          if (!loaded)
            return answer({
              text: `No earlier request of ${first.method} ${first.route ?? first.url} to compare ${a} with.`,
              data: { found: false },
            });
          [older, newer] = [loaded, first];
        }
        const digest = comparisonDigest(compareProfiles(older, newer));
        const url = context.baseUrl ? `${context.baseUrl}/_profiler/${older.token}/compare/${newer.token}` : null;
        return {
          content: [{ type: 'text', text: url ? `${digest.text}\nComparison page: ${url}` : digest.text }],
          structuredContent: { ...digest.data, comparisonUrl: url },
        };
      },
    );

    serveProfileResources(server, {
      newest: async () => (await this.profiler.find({ kinds: ['application'], limit: 20 })).rows,
      summary: async (t) => {
        const record = await this.profiler.load(t);
        return record && JSON.stringify({ ...this.digests.summary(record).data, profileUrl: link(record.token) });
      },
    });
    // McpServer promises tool list-changed notifications: the tools are fixed before it connects, and none is sent.
    server.server.registerCapabilities({ tools: { listChanged: false } });
    return server;
  }
}

function summaryOf(r: ProfileSummary) {
  return {
    token: r.token,
    method: r.method,
    url: r.url,
    status: r.statusCode,
    route: r.route,
    durationMs: r.duration,
    time: new Date(r.time).toISOString(),
  };
}

function missing(t: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `No profile ${t} in the store: it was never recorded, or retention removed it.` }],
    isError: true,
  };
}
