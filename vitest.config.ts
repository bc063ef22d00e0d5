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
    // One project per layer of test/ (the folder says which): units, suites over HTTP against a
    // real reference service, and whole processes. The system suites run last, once the others
    // are done: the load they make would disturb the others' timing, and their failures say "the
    // system" rather than a part.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts', 'test/v1/**/*.test.ts'] } },
      { extends: true, test: { name: 'system', include: ['test/system/**/*.test.ts'], globalSetup: ['test/system/setup.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
