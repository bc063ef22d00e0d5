// The command (`npm start`): reads the configuration, starts the embedded reference service when
// no upstream is configured, starts the gateway in front of it, and stops both on a signal.
// This is the only module that knows both halves; they never import each other.
import { ConfigError, parseGatewayConfig } from './gateway/config.ts';
import { startGateway, type Gateway } from './gateway/server.ts';
import { parseV1Config } from './v1/config.ts';
import { startV1Service, type V1Service } from './v1/server.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config;
  let v1Options;
  try {
    config = parseGatewayConfig(process.env);
    v1Options = config.upstreamUrl === undefined ? parseV1Config(process.env) : undefined;
  } catch (error) {
    if (error instanceof Error && (error instanceof ConfigError || error.name === 'ConfigError')) fail(error.message);
    throw error;
  }

  let embedded: V1Service | undefined;
  let demoKey: string | undefined;
  if (v1Options) {
    // The embedded default: the reference service on a free loopback port, demo data in a file
    // database (./data/v1.sqlite unless V1_DATABASE says otherwise), the gateway in front of it.
    embedded = await startV1Service({ ...v1Options, host: '127.0.0.1', port: 0, seed: v1Options.seed ?? 'demo' });
    demoKey = embedded.demoKeys.find((key) => key.organizationId === null)?.key;
  }
  const upstreamUrl = (config.upstreamUrl ?? embedded!.url).replace(/\/api\/v1\/?$/, '').replace(/\/+$/, '');

  let gateway: Gateway;
  try {
    gateway = await startGateway({ ...config, upstreamUrl, demoKey });
  } catch (error) {
    await embedded?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') fail(`PORT: cannot listen on ${config.host}:${config.port} (${code})`);
    throw error;
  }

  const shownHost = config.host === '127.0.0.1' || config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${shownHost}:${gateway.port}/graphql`;
  const lines = [`GraphQL gateway ready at ${url}`];
  if (embedded) {
    lines.push(`Embedded v1 reference service at ${upstreamUrl} (demo data)`);
    if (demoKey) lines.push(`Demo key (admin, all organizations): ${demoKey}  (send it as X-Service-Token)`);
    lines.push(`Open ${url} in a browser: Apollo Sandbox starts with the demo key in its shared headers.`);
  } else {
    lines.push(`Upstream v1 service: ${new URL(upstreamUrl).origin}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'stopping: finishing requests in flight');
    try {
      await gateway.close();
      await embedded?.close();
      process.exit(0);
    } catch (error) {
      gateway.logger.error({ err: error }, 'unclean stop');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
