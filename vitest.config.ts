import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowSetupFirst } from './test/sequencer.ts';

export default defineConfig({
  resolve: {
    // Apollo and @graphql-tools load graphql's CommonJS entry; without this alias the suites would
    // load the .mjs entry too, and two copies of graphql break instanceof checks (GraphQLError).
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  // reference-service's exports name its TypeScript sources under `source` (its built JavaScript
  // otherwise): the suites run the sources. The suites run in Vite's server (ssr) environment,
  // whose conditions are these (top-level resolve.conditions are the browser's); Vite adds them to
  // the ones vitest sets (node, development), which stay, and vitest gives them to its worker
  // processes as --conditions.
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    // eventsource and eventsource-parser (the MCP SDK's client) also name TypeScript sources under
    // `source`, which node cannot load: Vite transforms them, and the SDK that imports them.
    server: { deps: { inline: [/@modelcontextprotocol\/sdk\/dist\/esm\/client\//, /node_modules\/eventsource(-parser)?\//] } },
    // Suites start real HTTP servers and SQLite databases; give them room on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A fresh clone's slowest setup (the benchmark database) starts first: test/sequencer.ts.
    sequence: { sequencer: SlowSetupFirst },
    // Most suites spend much of their time waiting on sockets, timers and child processes: one
    // worker more than the machine's cores keeps both busy.
    maxWorkers: availableParallelism() + 1,
    // One project per layer of test/ (the folder says which): units, suites over HTTP against a
    // real reference service, and whole processes. The system suites run last, once the others
    // are done: the load they make would disturb the others' timing, and their failures say "the
    // system" rather than a part.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      // The reference service's own suites, as its package runs them (`npm test` there).
      'reference-service/vitest.config.ts',
      // The same suites with the service on PostgreSQL.
      'reference-service/vitest.postgres.config.ts',
      { extends: true, test: { name: 'system', include: ['test/system/**/*.test.ts'], globalSetup: ['test/system/setup.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
