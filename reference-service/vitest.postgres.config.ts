import { defineConfig } from 'vitest/config';
import { postgresAvailable } from './test/helpers/postgres.ts';

// The package's HTTP suites once more with every service on PostgreSQL (Debian's server, started
// once for the run on a free port in a temporary folder; a database of its own per service).
// Where the server is not installed the project runs nothing, with one line saying so, unless
// REQUIRE_POSTGRES=1 makes that a failure (see test/helpers/postgres.ts).
const available = postgresAvailable();
export default defineConfig({
  test: {
    name: 'reference-service-postgres',
    include: available ? [
      'test/auth.test.ts',
      'test/concurrency.test.ts',
      'test/devices.test.ts',
      'test/frameworks.test.ts',
      'test/http.test.ts',
      'test/traffic.test.ts',
      'test/traffic-export.test.ts',
      'test/traffic-short-terms.test.ts',
      'test/web-protection.test.ts',
    ] : [],
    passWithNoTests: true,
    env: { V1_TEST_STORE: 'postgres' },
    globalSetup: available ? ['test/helpers/postgres-setup.ts'] : [],
    // Setting up tens of thousands of entries goes through a server: more room than on SQLite.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
