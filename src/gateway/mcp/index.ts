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
import { contextIdentity, requestIdentity } from '../identity/http.ts';
import type { Caller, Identity } from '../identity/index.ts';
import { requiredScopesOf } from '../identity/scopes.ts';
import type { GatewayTracing } from '../observability/tracing/trace-types.ts';
import { projectPath } from '../project-path.ts';
import type { ApplyTrusted } from '../trusted-documents/http.ts';
import { loadManifest } from '../trusted-documents/manifest.ts';
import { mcpEndpoint } from './endpoint.ts';
import { McpMetrics } from './metrics.ts';
import { bearerChallenge, METADATA_PATH, protectedResourceMetadata } from './protected-resource.ts';
import { MCP_PATH } from './settings.ts';
import { loadTools, readOperationFiles, type OperationSource } from './operations.ts';
import { graphqlPipeline } from './pipeline.ts';

export { MCP_PATH, type McpSettings } from './settings.ts';

/** The operations shipped with the gateway, found from the project's root (src/, dist/ and the bundle alike). */
export const DEFAULT_OPERATIONS = 'src/gateway/mcp/default-operations.graphql';

/** The headers of the Streamable HTTP transport that a browser-based client (the MCP Inspector) sends and reads. */
const MCP_HEADERS = ['mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
const MCP_EXPOSED_HEADERS = ['mcp-session-id', 'www-authenticate'];
/** The metadata's addresses: the origin's (the contract's, named in the challenge) and RFC 9728's beside /mcp's path. */
const METADATA_PATHS = new Set([METADATA_PATH, `${METADATA_PATH}${MCP_PATH}`]);

type McpOptions = Pick<GatewayConfig, 'mcp' | 'identity' | 'trustedDocuments' | 'bodyLimitBytes' | 'corsOrigins' | 'production'> & { embeddedDemo?: boolean };

/** What the gateway lends the endpoint: the pieces /graphql answers with. */
export interface McpParts {
  schema: GraphQLSchema;
  apollo: ApolloServer<GatewayContext>;
  createContext: (input: ContextInput) => GatewayContext;
  /** Who a request is for, decided as on /graphql (AUTH_MODE). */
  identity: Identity;
  originOf: (req: IncomingMessage) => string;
  trusted: ApplyTrusted | undefined;
  tracing: GatewayTracing | undefined;
  registry: Registry;
  logger: Logger;
}

export interface Mcp {
  handle(req: IncomingMessage, res: ServerResponse, requestId: string, fail: (error: unknown) => void): void;
  /** Answers the protected resource metadata (RFC 9728) when `path` is its address and people sign in; false otherwise. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, path: string): boolean;
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
  const { identity } = parts;
  // Where people sign in (AUTH_MODE oidc or both), an MCP client learns from a 401 where to: the
  // metadata names the issuer. Its addresses are the gateway's public origin (PUBLIC_URL, or the
  // request's Host, as for export links) with /mcp and the well-known path.
  const issuer = identity.mode === 'key' ? undefined : options.identity.oidc?.issuer;
  // The scopes the SDL asks for: what a client may request for its tools. Not `admin`: a client
  // may ask for every scope listed, and an assistant should not hold every organization's data.
  const scopes = [...new Set([...requiredScopesOf(parts.schema).values()].flat(2))].sort();
  const endpoint = mcpEndpoint<Caller>({
    tools,
    execute: graphqlPipeline({
      apollo: parts.apollo,
      createContext: ({ req, caller, requestId, signal }, trace) => {
        // Each call's span gets the user's `sub`, as a /graphql request's does (and nothing else of the token).
        if (trace && caller.user) trace.identify(caller.user.sub);
        return parts.createContext({ requestId, ...contextIdentity(identity, logger, requestId, caller), signal, origin: parts.originOf(req), ...(trace ? { trace } : {}) });
      },
      ...(parts.trusted ? { trusted: parts.trusted } : {}),
      ...(parts.tracing ? { tracing: parts.tracing } : {}),
    }),
    // The credentials /graphql takes, checked by the same code: a key, a token, or either (AUTH_MODE).
    // Where people sign in, a 401's challenge also names the protected resource metadata.
    authenticate: async (req) => {
      const who = await requestIdentity(identity, req, false);
      if (who.ok && who.caller !== undefined) return { ok: true, caller: who.caller };
      if (who.ok) throw new Error('an identity without a caller outside the landing page');
      const headers = { ...who.headers };
      if (who.status === 401 && issuer !== undefined) {
        headers['www-authenticate'] = bearerChallenge(headers['www-authenticate'], `${parts.originOf(req)}${METADATA_PATH}`);
      }
      return { ok: false, status: who.status, message: who.answer.errors[0]?.message ?? 'Unauthorized.', headers };
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
    serveMetadata(req, res, path) {
      if (issuer === undefined || !METADATA_PATHS.has(path)) return false;
      req.resume();
      // A public document, read by browser-based clients (the MCP Inspector) from any page.
      const headers = { 'access-control-allow-origin': '*', 'cache-control': 'no-cache' };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...headers, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': 'mcp-protocol-version', 'access-control-max-age': '600' });
        res.end();
      } else if (req.method === 'GET' || req.method === 'HEAD') {
        sendJson(res, 200, protectedResourceMetadata(new URL(MCP_PATH, parts.originOf(req)), issuer, scopes), headers);
      } else {
        sendJson(res, 405, { error: 'method not allowed' }, { ...headers, allow: 'GET, HEAD, OPTIONS' });
      }
      return true;
    },
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
