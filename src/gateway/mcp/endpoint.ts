// /mcp: the Model Context Protocol over Streamable HTTP, with the official SDK, stateless. Each
// POST is answered on its own: a server and a transport are made for it and dropped with it, no
// per-client id header is handed out, and the answer is one JSON body (no event stream). So any replica
// answers any request, a load balancer needs no affinity, and a stopping gateway has no open
// stream to end. What a stateful server would add (server-to-client requests, progress
// notifications, resumable streams) has no use here: a tool call is one GraphQL operation, answered
// once. A GET (the optional stream of server-initiated messages) and a DELETE (ending a client's
// state, which is never kept) are 405, as the transport's specification allows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { BodyNotUtf8Error, BodyTooLargeError, ClientGoneError, discardRest, readBody } from '../http/body.ts';
import type { McpMetrics } from './metrics.ts';
import type { OperationTool } from './operations.ts';
import { toolResult, type GraphQLAnswer } from './tool-result.ts';

/** One tool call as the GraphQL pipeline runs it. */
export interface GraphQLCall {
  query: string;
  operationName: string;
  variables: Record<string, unknown>;
}

/** The HTTP request a call came in, for its request id, origin and trace headers, and who it is for. */
export interface CallOrigin<TCaller> {
  req: IncomingMessage;
  /** Who the request is for, as `authenticate` found it. */
  caller: TCaller;
  requestId: string;
  /** Aborted when the client goes away or cancels the call. */
  signal: AbortSignal;
}

/** Who a request is for, or why it is refused before anything is read (a 401 and its `WWW-Authenticate` challenge). */
export type Authentication<TCaller> = { ok: true; caller: TCaller } | { ok: false; status: number; message: string; headers?: Record<string, string> };

export interface McpEndpointOptions<TCaller> {
  tools: readonly OperationTool[];
  /** Runs a call through the same pipeline as /graphql and gives its answer. */
  execute: (call: GraphQLCall, origin: CallOrigin<TCaller>) => Promise<GraphQLAnswer>;
  /** The request's credentials checked as /graphql checks them. */
  authenticate: (req: IncomingMessage) => Promise<Authentication<TCaller>>;
  bodyLimitBytes: number;
  version: string;
  metrics: McpMetrics;
  logger: Logger;
}

const INSTRUCTIONS =
  'Each tool runs one GraphQL operation of the security product\'s gateway (security frameworks with their controls and evidence, ' +
  'protection devices and their traffic logs) with the caller\'s own access. A result\'s structuredContent is the operation\'s data. ' +
  'A failed call has isError with the errors\' codes: BAD_USER_INPUT (fix the argument named), NOT_FOUND or FORBIDDEN (the record ' +
  'does not exist or the caller may not see it), RATE_LIMITED (wait retryAfter seconds), QUERY_TOO_COMPLEX (ask for fewer items), ' +
  'UPSTREAM_* (the service behind the gateway failed; try again later). Lists are pages: follow pageInfo.endCursor with `after`.';

/** A JSON-RPC error answered before the SDK sees the request (it has no id to answer to). */
function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function describeTool(tool: OperationTool): Tool {
  return { name: tool.name, title: tool.annotations.title, description: tool.description, inputSchema: tool.inputSchema as Tool['inputSchema'], annotations: tool.annotations };
}

export function mcpEndpoint<TCaller>(options: McpEndpointOptions<TCaller>): (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const listed = options.tools.map(describeTool);
  // The SDK's default validator (for elicitation, which this server never asks for) would be built
  // again for each request's server: made once here.
  const validator = new AjvJsonSchemaValidator();

  async function callTool(name: string, args: Record<string, unknown>, origin: CallOrigin<TCaller>): Promise<CallToolResult> {
    const tool = byName.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`);
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(args).filter((argument) => !Object.hasOwn(properties, argument));
    let answer: GraphQLAnswer;
    if (unknown.length > 0) {
      // GraphQL would ignore a variable the operation does not declare: an assistant that sent one meant something by it.
      const expected = Object.keys(properties).join(', ') || 'none';
      const named = unknown.map((argument) => `"${argument.slice(0, 100)}"`).join(', ');
      answer = { errors: [{ message: `Unknown argument${unknown.length > 1 ? 's' : ''} ${named} for ${tool.name} (its arguments: ${expected}).`, extensions: { code: 'BAD_USER_INPUT' } }] };
    } else {
      try {
        answer = await options.execute({ query: tool.document, operationName: tool.name, variables: args }, origin);
      } catch (error) {
        // Said to the operator, never to the client: an unexpected error's message may name internals.
        options.logger.error({ err: error, requestId: origin.requestId, tool: tool.name }, 'mcp tool call failed');
        answer = { errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] };
      }
    }
    const firstError = answer.errors?.[0];
    options.metrics.toolCalls.inc({ tool: tool.name, outcome: firstError ? String(firstError.extensions?.code ?? 'INTERNAL_SERVER_ERROR') : 'ok' });
    return toolResult(answer);
  }

  return async (req, res, requestId) => {
    const authentication = await options.authenticate(req);
    if (!authentication.ok) {
      req.resume();
      return sendRpcError(res, authentication.status, -32001, authentication.message, authentication.headers);
    }
    const { caller } = authentication;
    if (req.method !== 'POST') {
      req.resume();
      return sendRpcError(res, 405, -32000, 'Method not allowed: this server is stateless and answers POST only (no per-client id, no server-initiated stream).', { allow: 'POST, OPTIONS' });
    }
    let body: unknown;
    try {
      const text = await readBody(req, options.bodyLimitBytes);
      body = JSON.parse(text);
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      if (error instanceof BodyTooLargeError) {
        await discardRest(req);
        return sendRpcError(res, 413, -32600, `Request body is too large: the limit is ${options.bodyLimitBytes} bytes (BODY_LIMIT_BYTES).`, { connection: 'close' });
      }
      if (error instanceof BodyNotUtf8Error) return sendRpcError(res, 400, -32700, 'Parse error: the request body is not valid UTF-8.');
      if (error instanceof SyntaxError) return sendRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON.');
      throw error;
    }

    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const server = new Server(
      { name: 'security-graphql-gateway', version: options.version },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      callTool(request.params.name, request.params.arguments ?? {}, { req, caller, requestId, signal: AbortSignal.any([abort.signal, extra.signal]) }),
    );
    server.onerror = (error) => options.logger.warn({ err: error, requestId }, 'mcp request failed');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
