// The per-request loader of frameworks: v1 lists them per organization (no single read, no
// paging), so every lookup and list of one organization in an operation costs one call.
import DataLoader from 'dataloader';
import type { UpstreamClient } from '../../upstream/client.ts';
import { settleEach } from '../common/settle.ts';
import { listSecurityFrameworks } from './operations.ts';
import type { WireSecurityFramework } from './wire.ts';

export interface FrameworkLoaders {
  /** The frameworks of one organization: one list call per organization per operation. */
  frameworksByOrganization: DataLoader<string, WireSecurityFramework[]>;
  /**
   * The organization each framework of this request was read under (`SecurityFramework.organizationId`):
   * v1's records do not name it, every route that returns one has it in its path. Kept beside the
   * records rather than in copies of them: a record is handed on as the upstream client gave it
   * (the response cache knows a stale answer by its records).
   */
  frameworkOwners: WeakMap<WireSecurityFramework, string>;
}

export function createFrameworkLoaders(client: UpstreamClient): FrameworkLoaders {
  const frameworkOwners = new WeakMap<WireSecurityFramework, string>();
  return {
    frameworksByOrganization: new DataLoader<string, WireSecurityFramework[]>((organizationIds) =>
      settleEach(organizationIds, async (organizationId) => {
        const list = (await listSecurityFrameworks(client, organizationId)).data;
        for (const framework of list) frameworkOwners.set(framework, organizationId);
        return list;
      }),
    ),
    frameworkOwners,
  };
}
