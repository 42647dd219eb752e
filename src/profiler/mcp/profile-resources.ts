import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ProfileSummary } from '../storage/profile-record.js';

/**
 * MCP's "Resource not found" error code (the specification's Resources page). The SDK v1 names no such code, and
 * its own resources/read answers an unknown URI with -32602 and a URI it cannot parse with -32603.
 */
export const RESOURCE_NOT_FOUND = -32002;

const URI_TEMPLATE = 'profile://{token}';
const PROFILE_URI = /^profile:\/\/([0-9a-f]{6})$/;
const METADATA = { title: 'Profiled request', description: 'A profiled request: its summary as JSON' };
const MIME_TYPE = 'application/json';

/** Where the profile resources come from: the newest profiles, and one profile's summary as JSON text. */
export interface ProfileResourceSource {
  newest(): Promise<ProfileSummary[]>;
  /** The JSON text of a profile's summary; null when the store has no such profile. */
  summary(token: string): Promise<string | null>;
}

/**
 * Every profile as the resource `profile://<token>`: listed (the newest), as a template, and read. Served by these
 * handlers instead of McpServer.registerResource, so that any URI that names no stored profile (an unknown token,
 * `profile://`, text that is no URI) is the specification's -32002, and the capability promises no list-changed
 * notifications, which nothing here sends.
 */
export function serveProfileResources(server: McpServer, source: ProfileResourceSource): void {
  const protocol = server.server;
  protocol.registerCapabilities({ resources: {} });
  protocol.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await source.newest()).map((r) => ({
      uri: `profile://${r.token}`,
      name: `${r.method} ${r.url} -> ${r.statusCode}`,
      ...METADATA,
      mimeType: MIME_TYPE,
    })),
  }));
  protocol.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ name: 'profile', uriTemplate: URI_TEMPLATE, ...METADATA, mimeType: MIME_TYPE }],
  }));
  protocol.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const token = PROFILE_URI.exec(uri)?.[1];
    const text = token === undefined ? null : await source.summary(token);
    if (text === null) throw new ResourceNotFoundError(uri, token);
    return { contents: [{ uri, mimeType: MIME_TYPE, text }] };
  });
}

/**
 * The -32002 error for a URI that names no stored profile. An McpError, whose message is kept as written: McpError
 * prefixes its own code, which the client adds again when it reads the answer.
 */
export class ResourceNotFoundError extends McpError {
  constructor(uri: string, token: string | undefined) {
    const why =
      token === undefined
        ? `the profiler's resources are ${URI_TEMPLATE}, a token being 6 lowercase hexadecimal characters`
        : 'no such profile in the store: it was never recorded, or retention removed it';
    const message = `Resource not found: ${JSON.stringify(uri.slice(0, 200))} (${why}).`;
    super(RESOURCE_NOT_FOUND, message, { uri });
    this.message = message;
  }
}
