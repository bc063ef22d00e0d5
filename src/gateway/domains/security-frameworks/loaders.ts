// The per-request loader of frameworks: v1 lists them per organization (no single read, no
// paging), so every lookup and list of one organization in an operation costs one call.
import DataLoader from 'dataloader';
import type { UpstreamClient } from '../../upstream/client.ts';
import { settleEach } from '../common/settle.ts';
import { listSecurityFrameworks } from './operations.ts';
import { ownedBy, type OwnedSecurityFramework } from './wire.ts';

export interface FrameworkLoaders {
  /** The frameworks of one organization: one list call per organization per operation. */
  frameworksByOrganization: DataLoader<string, OwnedSecurityFramework[]>;
}

export function createFrameworkLoaders(client: UpstreamClient): FrameworkLoaders {
  return {
    frameworksByOrganization: new DataLoader<string, OwnedSecurityFramework[]>((organizationIds) =>
      settleEach(organizationIds, async (organizationId) =>
        (await listSecurityFrameworks(client, organizationId)).data.map((framework) => ownedBy(organizationId, framework)),
      ),
    ),
  };
}
