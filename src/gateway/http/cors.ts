// CORS for /graphql, /mcp and export downloads: Apollo Sandbox's origins and the configured front ends get the CORS headers,
// on the preflight and on the request; any other origin gets none at all (the `cors` package
// alone would still send the allowed methods and headers to everyone).
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/** Where Apollo Sandbox runs from when it calls the gateway (embedded landing page or Studio). */
export const SANDBOX_ORIGINS = ['https://sandbox.embed.apollographql.com', 'https://studio.apollographql.com'];

export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** A front-end dev server on this machine (Vite, Next, webpack…), on any port. */
const LOCAL_DEV_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a browser page of `origin` may call the gateway: Sandbox's, the configured ones, and local dev servers when asked for. */
export function allowedOrigins(configuredOrigins: readonly string[], { localDevServers = false } = {}): (origin: string) => boolean {
  const listed = new Set([...SANDBOX_ORIGINS, ...configuredOrigins]);
  return (origin) => listed.has(origin) || (localDevServers && LOCAL_DEV_ORIGIN.test(origin));
}

/**
 * `localDevServers`: also allow http://localhost:<any port> and http://127.0.0.1:<any port> — on in
 * the embedded demo outside production, where a newcomer's dev server should just work; a real
 * deployment lists its front ends in CORS_ORIGINS.
 */
export function corsMiddleware(
  configuredOrigins: readonly string[],
  { localDevServers = false, extraHeaders = [] as readonly string[], extraExposedHeaders = [] as readonly string[] } = {},
): Middleware {
  const allowed = { has: allowedOrigins(configuredOrigins, { localDevServers }) };
  const handler = cors({
    origin: true, // reflects the origin, which is known to be allowed when the handler runs
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    // A front end that fetches an export (rather than following its link) reads the file name.
    exposedHeaders: ['content-disposition', ...extraExposedHeaders],
    allowedHeaders: ['content-type', 'x-service-token', 'authorization', 'apollo-require-preflight', 'x-apollo-operation-name', 'x-request-id', ...extraHeaders],
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && allowed.has(origin)) return handler(req, res, next);
    // The answer depends on the origin: caches must not hand one origin's answer to another.
    res.setHeader('vary', 'Origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'content-length': '0' });
      res.end();
      return;
    }
    next();
  };
}
