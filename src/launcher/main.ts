// dist/main.cjs, what `npm start` runs: the gateway bundle (dist/gateway.cjs, src/main.ts and all
// it loads) compiled with V8's code cache (code-cache.ts). Compiling the bundle, then each function
// that the start and a first request run, took about half of the time from a start to its first
// answer. The cache is made once the gateway has answered its first GraphQL request, so that it
// holds that request's code too, whenever there was none for this bundle, node and flags; it goes
// beside the bundle, and a directory that cannot be written only means starts without it.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { codeCacheFile, compileCommonJs, type CachedCommonJs } from './code-cache.ts';
import { boundHeapGrowth, withStartFlags } from './heap-growth.ts';

function saveAfterFirstGraphQLAnswer(bundle: CachedCommonJs): void {
  const channel = 'http.server.response.finish';
  const onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (!(request.url ?? '').startsWith('/graphql')) return;
    unsubscribe(channel, onFinish);
    // Once the answer is out: a moment's work, once per bundle.
    setImmediate(() => withStartFlags(() => bundle.save()));
  };
  subscribe(channel, onFinish);
}

const file = fileURLToPath(new URL('./gateway.cjs', import.meta.url));
const gateway = compileCommonJs(file, codeCacheFile(file));
if (gateway.state !== 'accepted') saveAfterFirstGraphQLAnswer(gateway);
gateway.run();
// The bundle's start has loaded node's modules it needs (heap-growth.ts says why only now).
boundHeapGrowth();
