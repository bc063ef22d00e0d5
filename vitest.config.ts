import { defineConfig } from 'vitest/config';

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
      { extends: true, test: { name: 'suites', include: ['test/**/*.test.ts'] } },
      // `npm run bench` end to end on a tiny database, once the suites are done: the load it makes
      // would disturb their timing.
      { extends: true, test: { name: 'bench', include: ['test/bench/bench.smoke.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
