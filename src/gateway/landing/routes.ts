// The landing page's own routes beside GraphQL: `GET /` leads to the explorer on /graphql; the
// offline explorer's files under /graphiql/; and, beside the default explorer, Apollo Sandbox on
// GET /graphql?explorer=sandbox. With the landing page off, none of them answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRAPHIQL_ASSETS_PATH, graphiqlAssets, sendAsset } from './graphiql.ts';
import { SANDBOX_SEARCH, sandboxPageHtml } from './sandbox.ts';

export interface LandingSettings {
  landingPage: boolean;
  landingPageKind: 'default' | 'sandbox' | 'graphiql';
  demoKey?: string | undefined;
}

/** Answers the request when it is one of the landing page's routes; says whether it did. */
export type LandingRoutes = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

export function landingRoutes(settings: LandingSettings, graphqlPath = '/graphql'): LandingRoutes {
  if (!settings.landingPage) return () => false;
  const graphiql = settings.landingPageKind === 'sandbox' ? undefined : graphiqlAssets();
  // Rendered once, on the first visit: the page is the same for every visitor.
  let sandbox: Promise<string> | undefined;
  return (req, res, path) => {
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/' && read) {
      res.writeHead(302, { location: graphqlPath, 'content-length': 0 });
      res.end();
      return true;
    }
    if (graphiql && path.startsWith(GRAPHIQL_ASSETS_PATH)) {
      sendAsset(graphiql, path.slice(GRAPHIQL_ASSETS_PATH.length), req, res);
      return true;
    }
    if (settings.landingPageKind === 'default' && read && path === graphqlPath && (req.url ?? '').endsWith(`?${SANDBOX_SEARCH}`)) {
      sandbox ??= sandboxPageHtml(settings.demoKey);
      sandbox.then(
        (html) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : html);
        },
        () => {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end('{"error":"the Sandbox page could not be rendered"}');
        },
      );
      return true;
    }
    return false;
  };
}
