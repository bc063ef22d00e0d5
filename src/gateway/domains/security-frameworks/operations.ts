// The v1 operations on security frameworks (rest-v1.md, operations 1–4), over the request's client.
import type { UpstreamClient } from '../../upstream/client.ts';
import type { WireList } from '../../upstream/envelope.ts';
import type { WireSecurityFramework } from './wire.ts';
import { frameworkRoutes } from './routes.ts';

type Id = string | number;

/** What v1 takes to create or replace a framework. `security_frameworks` are its controls. */
export interface SecurityFrameworkBody {
  title: string;
  security_frameworks: unknown[];
}

export function listSecurityFrameworks(client: UpstreamClient, organizationId: Id): Promise<WireList<WireSecurityFramework>> {
  return client.call(frameworkRoutes.listSecurityFrameworks, { params: { organizationid: String(organizationId) } });
}

/** The new framework's id. `organizationId` is sent as the `organization` query (admin keys need it). */
export function createSecurityFramework(client: UpstreamClient, body: SecurityFrameworkBody, organizationId?: Id | null): Promise<number> {
  const query = new URLSearchParams();
  if (organizationId !== undefined && organizationId !== null) query.set('organization', String(organizationId));
  return client.call(frameworkRoutes.createSecurityFramework, { query, body });
}

export function updateSecurityFramework(client: UpstreamClient, organizationId: Id, id: Id, body: SecurityFrameworkBody): Promise<WireSecurityFramework> {
  return client.call(frameworkRoutes.updateSecurityFramework, { params: { organizationid: String(organizationId), frameworkid: String(id) }, body });
}

export function deleteSecurityFramework(client: UpstreamClient, organizationId: Id, id: Id): Promise<WireSecurityFramework> {
  return client.call(frameworkRoutes.deleteSecurityFramework, { params: { organizationid: String(organizationId), frameworkid: String(id) } });
}
