import { defineConfig } from 'vitest/config';

// The package's HTTP suites once more with every service on PostgreSQL (Debian's server, started
// once for the run on a free port in a temporary folder; a database of its own per service), and
// the suites about running on PostgreSQL. Where the server is not installed the set-up fails,
// unless the suites were skipped: see test/helpers/postgres.ts.
export default defineConfig({
  test: {
    name: 'reference-service-postgres',
    include: [
      'test/auth.test.ts',
      'test/concurrency.test.ts',
      'test/devices.test.ts',
      'test/frameworks.test.ts',
      'test/http.test.ts',
      'test/traffic.test.ts',
      'test/traffic-export.test.ts',
      'test/web-protection.test.ts',
    ],
    env: { V1_TEST_STORE: 'postgres' },
    globalSetup: ['test/helpers/postgres-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
