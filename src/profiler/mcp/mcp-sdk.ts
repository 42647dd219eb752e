import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { z } from 'zod';

/** What the MCP server uses of the SDK and of zod. */
export interface McpSdk {
  McpServer: typeof McpServer;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  z: typeof z;
}

let loading: Promise<McpSdk> | undefined;

/**
 * The MCP SDK and zod, loaded the first time an assistant connects: memory that no request and no profiler page
 * needs (BENCHMARKS.md).
 */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('zod'),
  ]).then(([mcp, http, zod]) => ({
    McpServer: mcp.McpServer,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    z: zod.z,
  }));
  return loading;
}
