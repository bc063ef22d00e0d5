// The assistants' endpoint as the gateway starts it: the tools read and checked once (the start
// stops on a bad operation file), then the /mcp handler over them, behind the same CORS rules as
// /graphql and calling the same pipeline. Off (undefined) without MCP=1.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from '../config.ts';
import type { ContextInput, GatewayContext } from '../context.ts';
import { allowedOrigins, corsMiddleware } from '../http/cors.ts';
import { sendJson } from '../http/plain.ts';
import type { GatewayTracing } from '../observability/tracing/trace-types.ts';
import { projectPath } from '../project-path.ts';
import type { ApplyTrusted } from '../trusted-documents/http.ts';
import { loadManifest } from '../trusted-documents/manifest.ts';
import { mcpEndpoint } from './endpoint.ts';
import { McpMetrics } from './metrics.ts';
import { bearerChallenge } from './protected-resource.ts';
import { loadTools, readOperationFiles, type OperationSource } from './operations.ts';
import { graphqlPipeline } from './pipeline.ts';

export { MCP_PATH, type McpSettings } from './settings.ts';

/** The operations shipped with the gateway, found from the project's root (src/, dist/ and the bundle alike). */
export const DEFAULT_OPERATIONS = 'src/gateway/mcp/default-operations.graphql';

/** The headers of the Streamable HTTP transport that a browser-based client (the MCP Inspector) sends and reads. */
const MCP_HEADERS = ['mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
const MCP_EXPOSED_HEADERS = ['mcp-session-id', 'www-authenticate'];
const NO_CREDENTIALS = 'Unauthorized: send an API key as X-Service-Token or Authorization: Bearer <key>, as on /graphql.';

type McpOptions = Pick<GatewayConfig, 'mcp' | 'trustedDocuments' | 'bodyLimitBytes' | 'corsOrigins' | 'production'> & { embeddedDemo?: boolean };

/** What the gateway lends the endpoint: the pieces /graphql answers with. */
export interface McpParts {
  schema: GraphQLSchema;
  apollo: ApolloServer<GatewayContext>;
  createContext: (input: ContextInput) => GatewayContext;
  /** The caller's credentials as /graphql reads them; null: none (HTTP 401 here). */
  credentialsOf: (req: IncomingMessage) => string | null;
  originOf: (req: IncomingMessage) => string;
  trusted: ApplyTrusted | undefined;
  tracing: GatewayTracing | undefined;
  registry: Registry;
  logger: Logger;
}

/** Who a tool call is for: the key it carries, as on /graphql. */
interface KeyCaller {
  apiKey: string;
}

export interface Mcp {
  handle(req: IncomingMessage, res: ServerResponse, requestId: string, fail: (error: unknown) => void): void;
}

function defaultOperations(): OperationSource[] {
  return [{ label: DEFAULT_OPERATIONS, text: readFileSync(projectPath(DEFAULT_OPERATIONS), 'utf8') }];
}

export function mcpFor(options: McpOptions, parts: McpParts): Mcp | undefined {
  const settings = options.mcp;
  if (settings === undefined) return undefined;
  const chosen = settings.operations !== undefined;
  const sources = chosen ? readOperationFiles(settings.operations!) : defaultOperations();
  const { mode, manifest } = options.trustedDocuments;
  const { tools, mutationsLeftOut, untrustedLeftOut } = loadTools(sources, {
    schema: parts.schema,
    allowMutations: settings.allowMutations,
    // Enforced, only trusted documents run: a tool is one, or is not served.
    ...(mode === 'enforce' && manifest !== undefined ? { trusted: loadManifest(manifest).values(), untrusted: chosen ? 'stop' : 'leave out' } : {}),
  });
  const { logger } = parts;
  if (mutationsLeftOut.length > 0) logger.info({ operations: mutationsLeftOut }, 'MCP: mutations left out of the tools (MCP_ALLOW_MUTATIONS is off)');
  if (untrustedLeftOut.length > 0) logger.warn({ operations: untrustedLeftOut }, 'MCP: default tools left out: not trusted documents (TRUSTED_DOCUMENTS_MODE=enforce)');
  logger.info({ tools: tools.map((tool) => tool.name), operations: chosen ? settings.operations : 'default' }, 'MCP: tools served at /mcp');
  const { version } = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };
  const endpoint = mcpEndpoint<KeyCaller>({
    tools,
    execute: graphqlPipeline({
      apollo: parts.apollo,
      createContext: ({ req, caller, requestId, signal }, trace) =>
        parts.createContext({ requestId, apiKey: caller.apiKey, signal, origin: parts.originOf(req), ...(trace ? { trace } : {}) }),
      ...(parts.trusted ? { trusted: parts.trusted } : {}),
      ...(parts.tracing ? { tracing: parts.tracing } : {}),
    }),
    // The credentials /graphql takes. Where people sign in through a provider, this is where its
    // check goes, and the challenge names the protected resource metadata (protected-resource.ts).
    authenticate: async (req) => {
      const apiKey = parts.credentialsOf(req);
      if (apiKey !== null) return { ok: true, caller: { apiKey } };
      return { ok: false, status: 401, message: NO_CREDENTIALS, headers: { 'www-authenticate': bearerChallenge() } };
    },
    bodyLimitBytes: options.bodyLimitBytes,
    version,
    metrics: new McpMetrics(parts.registry),
    logger,
  });
  const localDevServers = options.embeddedDemo === true && !options.production;
  const cors = corsMiddleware(options.corsOrigins, { localDevServers, extraHeaders: MCP_HEADERS, extraExposedHeaders: MCP_EXPOSED_HEADERS });
  const allowed = allowedOrigins(options.corsOrigins, { localDevServers });
  return {
    handle(req, res, requestId, fail) {
      // The transport's specification asks servers to check Origin (a DNS-rebound page is same-origin
      // to the browser, so CORS alone would let it through): a page of another origin is refused.
      const origin = req.headers.origin;
      if (origin !== undefined && !allowed(origin)) {
        req.resume();
        return sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: this origin may not call /mcp (CORS_ORIGINS).' }, id: null });
      }
      cors(req, res, (error?: unknown) => {
        if (error) return fail(error);
        endpoint(req, res, requestId).catch(fail);
      });
    },
  };
}
