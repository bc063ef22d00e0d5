import { defineConfig } from 'vitest/config';

/**
 * System suites: whole processes (`npm start`'s command), load, `npm run bench` end to end on a
 * tiny database, a browser, replicas sharing a Redis. They run in a project of their own, once the other suites are done: the load they
 * make would disturb the others' timing, and their failures say "the system" rather than a part.
 */
const SYSTEM_SUITES = ['test/main.test.ts', 'test/shutdown.test.ts', 'test/gateway/load.test.ts', 'test/bench/bench.smoke.ts', 'test/browser/graphiql.test.ts', 'test/replicas/shared-state.test.ts'];

export default defineConfig({
  resolve: {
    // Apollo and @graphql-tools load graphql's CommonJS entry; without this alias the suites would
    // load the .mjs entry too, and two copies of graphql break instanceof checks (GraphQLError).
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Suites start real HTTP servers and SQLite databases; give them room on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: SYSTEM_SUITES } },
      { extends: true, test: { name: 'system', include: SYSTEM_SUITES, sequence: { groupOrder: 1 } } },
    ],
  },
});
