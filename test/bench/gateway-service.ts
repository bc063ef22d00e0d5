// Bench-only entry of the gateway (a child of run.ts): configured from the environment exactly as
// `npm start` configures it (HOST, PORT, UPSTREAM_URL, LOG_LEVEL, NODE_ENV, limits), in front of
// the upstream that run.ts names.
import { parseGatewayConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/server.ts';
import { serveParent, tellParentReady } from './children.ts';

let gateway: Gateway | undefined;
serveParent({}, async () => {
  await gateway?.close();
});

const config = parseGatewayConfig(process.env);
if (config.upstreamUrl === undefined) throw new Error('UPSTREAM_URL is not set');
gateway = await startGateway({ ...config, upstreamUrl: config.upstreamUrl });
tellParentReady(gateway.url);
