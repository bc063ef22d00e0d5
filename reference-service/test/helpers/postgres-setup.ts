// Global set-up of the suites run against PostgreSQL (vitest.postgres.config.ts): one server for
// the run, each service started by a suite getting a database of its own on it.
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.close();
}
