// The gateway as `npm start` runs it: src/main.ts and all it loads in one CommonJS file,
// dist/gateway.cjs, and dist/main.cjs, which runs it with V8's code cache (src/launcher/). Node's
// loader resolves, reads and compiles each module file on its own, and the gateway loads some 600
// of them (graphql, undici, Apollo Server…): one file starts in a fraction of that time, and one
// CommonJS file can be compiled from a code cache, which node 20 offers for no ES module. What is
// loaded only on demand is in the file too, compiled only when asked for. The embedded reference
// service stays tsc's dist/v1/ tree: it reads its migrations beside its own code, and it is loaded
// (an import() of ES modules) only without UPSTREAM_URL.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildASTSchema, concatAST, parse } from 'graphql';

/**
 * The reference service: left to tsc's output, dist/v1/ beside the bundle. src/reference-service.ts
 * loads it with import(), which a script compiled from a code cache cannot run: in the bundle it
 * is require (node 20.19 and later load ES modules so), of the same files.
 */
let referenceServiceRequired = false;
const referenceServiceApart = {
  name: 'reference-service-apart',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/v1\// }, (args) => ({ path: args.path.replace(/\.ts$/, '.js'), external: true }));
    plugin.onLoad({ filter: /[\\/]src[\\/]reference-service\.ts$/ }, () => {
      referenceServiceRequired = true;
      return {
        contents: "export const loadV1Config = async () => require('./v1/config.ts');\nexport const loadV1Server = async () => require('./v1/server.ts');\n",
        loader: 'js',
      };
    });
  },
};

/**
 * @apollo/utils.createhash hashes with node's crypto only when `module.require` exists, which a
 * bundle's CommonJS wrapper lacks: it would fall back to a JavaScript SHA-256 for every query
 * Apollo hashes. In the bundle it is node's crypto, always: `crypto.hash`, one call, for the one
 * string Apollo hashes per request (a Hash object costs about three times as much), and a Hash
 * object for anything else.
 */
const nodeCryptoHash = {
  name: 'node-crypto-hash',
  setup(plugin) {
    plugin.onResolve({ filter: /^@apollo\/utils\.createhash$/ }, () => ({ path: 'createhash', namespace: 'node-crypto-hash' }));
    plugin.onLoad({ filter: /.*/, namespace: 'node-crypto-hash' }, () => ({
      contents: `
        import { createHash as hashObject, hash } from 'node:crypto';
        export function createHash(algorithm) {
          let text;
          let object;
          return {
            update(data, encoding) {
              if (object === undefined && text === undefined && typeof data === 'string' && encoding === undefined) {
                text = data;
                return this;
              }
              if (object === undefined) {
                object = hashObject(algorithm);
                if (text !== undefined) object.update(text);
              }
              object.update(data, encoding);
              return this;
            },
            digest(encoding) {
              if (object !== undefined) return object.digest(encoding);
              return hash(algorithm, text ?? '', encoding ?? 'buffer');
            },
          };
        }`,
      loader: 'js',
    }));
  },
};

/**
 * graphql-jit loads fast-json-stringify (and with it ajv, a fifth of the bundle) for its
 * `customJSONSerializer` option, which the gateway does not set (src/gateway/executor/executor.ts):
 * in the bundle it is a function that says so, should the option ever be set.
 */
const noCustomJsonSerializer = {
  name: 'no-custom-json-serializer',
  setup(plugin) {
    plugin.onResolve({ filter: /^fast-json-stringify$/ }, () => ({ path: 'fast-json-stringify', namespace: 'no-custom-json-serializer' }));
    plugin.onLoad({ filter: /.*/, namespace: 'no-custom-json-serializer' }, () => ({
      contents:
        "export default function fastJsonStringify() { throw new Error('graphql-jit customJSONSerializer: fast-json-stringify is not in the bundle (scripts/bundle.mjs)'); }",
      loader: 'js',
    }));
  },
};

/**
 * graphql is a CommonJS package, imported by some seventy ES modules (the gateway's, Apollo's, the
 * limits'). esbuild gives each importer its own copy of its exports, some 400 getters each, made at
 * start. Every ES module import of `graphql` goes through one module instead, which re-exports it
 * once; CommonJS requires (graphql-jit's) reach the same files, so there is still one graphql.
 */
const oneGraphqlNamespace = {
  name: 'one-graphql-namespace',
  setup(plugin) {
    plugin.onResolve({ filter: /^graphql$/ }, (args) =>
      args.kind === 'import-statement' && args.namespace === 'file' ? { path: 'graphql', namespace: 'one-graphql-namespace' } : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'one-graphql-namespace' }, () => ({
      contents: "export * from 'graphql/index.js';",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'js',
    }));
  },
};

/**
 * Apollo Server's `makeGatewayGraphQLRequestContext` (what its request pipeline hands a `gateway`'s
 * executor) builds an object with a getter and a setter per request, which kept each request's
 * data alive through every young-generation collection: in the bundle it is
 * src/gateway/executor/gateway-request-context.ts, the same function without that object. The
 * build fails if Apollo's pipeline no longer imports it.
 */
let gatewayRequestContextReplaced = false;
const gatewayRequestContext = {
  name: 'gateway-request-context',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/utils\/makeGatewayGraphQLRequestContext\.js$/ }, (args) => {
      if (!/@apollo\/server\/dist\/esm\/requestPipeline\.js$/.test(args.importer)) return undefined;
      gatewayRequestContextReplaced = true;
      return { path: fileURLToPath(new URL('../src/gateway/executor/gateway-request-context.ts', import.meta.url)) };
    });
  },
};

/**
 * undici's client loads its HTTP/2 half, and with it node:http2 (some 6 ms of a start), when it is
 * loaded itself. The gateway's pool never asks for HTTP/2 (no `allowH2`): in the bundle that half
 * is loaded on its first use, which would be the first HTTP/2 connection. The build fails if
 * undici's client no longer loads it by that name.
 */
let http2ClientDeferred = false;
const deferredHttp2Client = {
  name: 'deferred-http2-client',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (args.namespace !== 'file' || !/undici\/lib\/dispatcher\/client\.js$/.test(args.importer)) return undefined;
      http2ClientDeferred = true;
      return { path: 'undici/lib/dispatcher/client-h2.js', namespace: 'deferred-http2-client', pluginData: args.resolveDir };
    });
    plugin.onLoad({ filter: /.*/, namespace: 'deferred-http2-client' }, (args) => ({
      contents: `let connectH2;
        module.exports = function deferredConnectH2(client, socket) {
          connectH2 ??= require('./client-h2.js');
          return connectH2(client, socket);
        };`,
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * src/gateway/sdl.ts reads and lexes schema/*.graphql at start-up. In the bundle its place is taken
 * by the same documents, parsed now (without source locations, which nothing reads from the SDL)
 * and checked now against every SDL rule: an SDL that would not build fails the build, and the
 * gateway skips those rules (`sdlChecked`). The file list is sdl.ts's own: `*.graphql`, sorted.
 */
let sdlReplaced = false;
const sdlParsedAtBuild = {
  name: 'sdl-parsed-at-build',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]src[\\/]gateway[\\/]sdl\.ts$/ }, () => {
      const directory = fileURLToPath(new URL('../schema/', import.meta.url));
      const files = readdirSync(directory)
        .filter((name) => name.endsWith('.graphql'))
        .sort()
        .map((name) => join(directory, name));
      const documents = files.map((file) => parse(readFileSync(file, 'utf8'), { noLocation: true }));
      buildASTSchema(concatAST(documents));
      sdlReplaced = true;
      return {
        contents: `export const sdlDocuments = JSON.parse(${JSON.stringify(JSON.stringify(documents))});\nexport const sdlChecked = true;\n`,
        loader: 'js',
        watchFiles: files,
      };
    });
  },
};

/**
 * Apollo Server's usage reporting, schema reporting and inline traces (with their protobuf code,
 * a sixth of the bundle) are imported only when no plugin turned them off, and the gateway turns
 * them off (src/gateway/executor/apollo-features-off.ts): in the bundle each is a function that
 * says so.
 */
let reportingLeftOut = 0;
const apolloReportingLeftOut = {
  name: 'apollo-reporting-left-out',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/plugin\/(usageReporting|schemaReporting|inlineTrace)\/index\.js$/ }, (args) => {
      if (!/@apollo\/server\/dist\/esm\/ApolloServer\.js$/.test(args.importer)) return undefined;
      reportingLeftOut += 1;
      return { path: args.path, namespace: 'apollo-reporting-left-out' };
    });
    plugin.onLoad({ filter: /.*/, namespace: 'apollo-reporting-left-out' }, (args) => {
      const feature = /plugin\/(\w+)\//.exec(args.path)[1];
      const name = `ApolloServerPlugin${feature[0].toUpperCase()}${feature.slice(1)}`;
      return {
        contents: `export function ${name}() { throw new Error('${name} is not in the bundle: the gateway turns it off (src/gateway/executor/apollo-features-off.ts)'); }`,
        loader: 'js',
      };
    });
  },
};

/**
 * What the bundle and the launcher are both built as: one CommonJS file each for node 20, beside
 * each other in dist/. import.meta.url, which the sources read (files found from the project's
 * root, the bundle beside the launcher), is the file's own URL: a CommonJS file has no import.meta.
 */
const commonJsFile = {
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  define: { 'import.meta.url': '__fileUrl' },
  banner: { js: "const __fileUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
};
const bundleFile = 'dist/gateway.cjs';

// What earlier builds left: chunks (when the bundle was ES modules), an ES module launcher, and a
// code cache made for another bundle (the launcher would not use it, but it would stay; its name
// is src/launcher/code-cache.ts's codeCacheFile, which plain JavaScript cannot import).
rmSync('dist/chunks', { recursive: true, force: true });
rmSync('dist/main.js', { force: true });
rmSync('dist/main.js.map', { force: true });
rmSync(`${bundleFile}.cache`, { force: true });

const result = await build({
  ...commonJsFile,
  entryPoints: { gateway: 'src/main.ts' },
  plugins: [referenceServiceApart, nodeCryptoHash, noCustomJsonSerializer, oneGraphqlNamespace, gatewayRequestContext, deferredHttp2Client, sdlParsedAtBuild, apolloReportingLeftOut],
  // Loaded only when their setting asks (REDIS_URL, OTEL_EXPORTER_OTLP_ENDPOINT), from node_modules
  // as published: they find files of their own package at run time. OpenTelemetry's API is in the
  // bundle: prom-client loads it at start (for exemplars), and from node_modules its hundred files
  // took some 25 ms of every start. The SDK's own copy of the API and the bundle's find each other's
  // spans in a context by the same global symbol, as the API is built to.
  external: ['ioredis', '@opentelemetry/core', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@opentelemetry/sdk-trace-base'],
  metafile: process.env.BUNDLE_METAFILE !== undefined,
});

// The launcher: node's own modules only, and CommonJS too. Node starts an ES module through its
// ES module loader, which it would otherwise not load at all, and gives each node module the
// launcher imports an ES module facade: some 30 ms of every start.
await build({ ...commonJsFile, entryPoints: { main: 'src/launcher/main.ts' } });

if (reportingLeftOut !== 3) {
  throw new Error("scripts/bundle.mjs: @apollo/server's ApolloServer.js no longer imports its usage reporting, schema reporting and inline trace plugins as it did; see apolloReportingLeftOut");
}
if (!referenceServiceRequired) {
  throw new Error('scripts/bundle.mjs: src/reference-service.ts is no longer in the bundle; see referenceServiceApart');
}
if (!sdlReplaced) {
  throw new Error('scripts/bundle.mjs: src/gateway/sdl.ts is no longer in the bundle; see sdlParsedAtBuild');
}
if (!http2ClientDeferred) {
  throw new Error("scripts/bundle.mjs: undici's dispatcher/client.js no longer loads ./client-h2.js; see deferredHttp2Client");
}
if (!gatewayRequestContextReplaced) {
  throw new Error("scripts/bundle.mjs: @apollo/server's request pipeline no longer imports ./utils/makeGatewayGraphQLRequestContext.js; see src/gateway/executor/gateway-request-context.ts");
}

// The bundle is ASCII throughout. V8 holds a script's source for as long as its functions live (to
// compile each lazily, and for toString), in one byte per character when every character is
// Latin-1 and in two otherwise: one character beyond Latin-1 doubled the 2.7 MB the gateway keeps
// of its bundle. And ASCII bytes are their own characters: the launcher makes the source string
// from the file's bytes without decoding UTF-8 (src/launcher/code-cache.ts). esbuild writes
// strings, templates and regular expressions in ASCII (its default charset), so what is left are
// comments, where a character's escape reads as well.
const bundled = readFileSync(bundleFile, 'utf8');
const ascii = bundled.replace(/[^\u0000-\u007f]/gu, (character) => `\\u{${character.codePointAt(0).toString(16)}}`);
if (ascii !== bundled) writeFileSync(bundleFile, ascii);

// BUNDLE_METAFILE=<path>: what went into each output file, for esbuild's analyzer.
if (result.metafile) writeFileSync(process.env.BUNDLE_METAFILE, JSON.stringify(result.metafile));
