// Web protection records: v1 offers only a partial edit and a delete, both by id.
import type { Resolvers, WebProtectionRecordInput } from '../generated/resolvers.ts';
import { badUserInput } from '../errors.ts';
import { requirePositiveId } from './arguments.ts';
import { webStats } from './statistics.ts';

/** Only the fields the client gave go upstream (the edit is partial); an explicit null cannot be
 *  stored by v1, so it is refused rather than silently dropped. */
function toWireBody(input: WebProtectionRecordInput): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === null) throw badUserInput(`input.${field} cannot be null; leave it out to keep the current value.`, `input.${field}`);
    if (field === 'organizationId') body.organization = Number(requirePositiveId(String(value), 'input.organizationId'));
    else body[field] = value;
  }
  return body;
}

export const webProtectionResolvers: Resolvers = {
  Mutation: {
    updateWebProtectionRecord: async (_parent, args, { upstream }) => ({
      webProtectionRecord: await upstream.updateWebProtectionRecord(requirePositiveId(args.id, 'id'), toWireBody(args.input)),
    }),
    deleteWebProtectionRecord: async (_parent, args, { upstream }) => ({
      webProtectionRecord: await upstream.deleteWebProtectionRecord(requirePositiveId(args.id, 'id')),
    }),
  },
  WebProtectionRecord: {
    id: (record) => String(record.id),
  },
  WebProtectionCheck: {
    webStat: (check) => webStats(check.web_stat),
  },
  Organization: {
    id: (organization) => String(organization.id),
  },
};
