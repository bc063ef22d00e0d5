import { defineConfig } from 'vitest/config';

// The package's suites (`npm test` here; the repository's `npm test` runs them as one of its
// projects). They import the sources by relative paths: no export condition is involved.
export default defineConfig({
  test: {
    name: 'reference-service',
    include: ['test/**/*.test.ts'],
    // Suites start real HTTP servers and SQLite databases; give them room on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
