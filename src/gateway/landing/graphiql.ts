// The default landing page, and LANDING_PAGE=graphiql: GraphiQL served by the gateway itself, from the npm packages it ships
// with (graphiql's, React's and ReactDOM's prebuilt browser files), so the explorer works where no
// CDN can be reached (an air-gapped site, a laptop offline). As the default page it links to Apollo
// Sandbox (from Apollo's CDN), which works when the browser is online.
// The page is Apollo's landing page (what a browser gets on GET /graphql); its files are served
// under /graphiql/ by server.ts, read once at start.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { projectPath } from '../project-path.ts';
import { SANDBOX_SEARCH } from './sandbox.ts';

const require = createRequire(import.meta.url);

/** A file of a package: its prebuilt browser files are outside what its `exports` lets one import. */
function packageFile(name: string, file: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), file);
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The files of the page, by their name under /graphiql/. */
const FILES: Record<string, { from: () => string; type: string }> = {
  'react.production.min.js': { from: () => packageFile('react', 'umd/react.production.min.js'), type: JS },
  'react-dom.production.min.js': { from: () => packageFile('react-dom', 'umd/react-dom.production.min.js'), type: JS },
  'graphiql.min.js': { from: () => packageFile('graphiql', 'graphiql.min.js'), type: JS },
  'graphiql.min.css': { from: () => packageFile('graphiql', 'graphiql.min.css'), type: CSS },
  'start.js': { from: () => projectPath('src/gateway/landing/graphiql-start.js'), type: JS },
  'page.css': { from: () => projectPath('src/gateway/landing/graphiql-page.css'), type: CSS },
};

export const GRAPHIQL_ASSETS_PATH = '/graphiql/';

export interface GraphiQLAsset {
  body: Buffer;
  type: string;
}

/** The page's files, read once: a few MB that every visit would otherwise read from disk. */
export function graphiqlAssets(): Map<string, GraphiQLAsset> {
  const assets = new Map<string, GraphiQLAsset>();
  for (const [name, { from, type }] of Object.entries(FILES)) {
    assets.set(name, { body: readFileSync(from()), type });
  }
  return assets;
}

// Scripts and styles from this gateway only; the page talks to this gateway only (HTTP and ws).
// GraphiQL sets inline styles and embeds its icons as data URIs.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'";

function escapeJsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function graphiqlLandingPagePlugin<TContext extends BaseContext>(options: { path: string; demoKey?: string | undefined; query: string; sandboxLink?: boolean }): ApolloServerPlugin<TContext> {
  const config = {
    path: options.path,
    query: options.query,
    ...(options.demoKey ? { headers: { 'X-Service-Token': options.demoKey } } : {}),
    ...(options.sandboxLink ? { sandbox: `${options.path}?${SANDBOX_SEARCH}` } : {}),
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Security GraphQL gateway: GraphiQL</title>
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}graphiql.min.css">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}page.css">
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script type="application/json" id="graphiql-config">${escapeJsonForHtml(config)}</script>
<script src="${GRAPHIQL_ASSETS_PATH}react.production.min.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}react-dom.production.min.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}graphiql.min.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}start.js"></script>
</body>
</html>
`;
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}

/** One of the page's files, or 404. They change only with the gateway's version. */
export function sendAsset(assets: Map<string, GraphiQLAsset>, name: string, req: IncomingMessage, res: ServerResponse): void {
  const asset = assets.get(name);
  if (!asset) {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    return void res.end(req.method === 'HEAD' ? undefined : '{"error":"not found"}');
  }
  res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': 'public, max-age=3600' });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
