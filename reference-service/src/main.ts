// `npm run v1`: the reference v1 service as a process, configured by V1_* environment variables.
import { ConfigError, parseV1Config } from './config.ts';
import { startV1Service } from './server.ts';
import type { V1ServiceOptions } from './server.ts';

let options: V1ServiceOptions;
try {
  options = parseV1Config(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

try {
  const service = await startV1Service(options);
  // Said by the one process that seeded, so an operator starting several on one database sees which.
  if (service.seeded) console.error('v1: seeded the demo data');
  console.log(`v1 service listening on ${service.url}`);
  if (service.demoKeys.length > 0) {
    console.log('demo API keys (X-Service-Token):');
    for (const { key, organizationId, label } of service.demoKeys) {
      console.log(`  ${key}  ${organizationId === null ? 'all organizations' : `organization ${organizationId}`}  (${label})`);
    }
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`v1: failed to stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`v1: cannot start: ${message.split('\n')[0]}`);
  process.exit(1);
}
