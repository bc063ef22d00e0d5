// Web protection records: v1 offers only a partial edit and a delete, both by id.
import type { Resolvers, WebProtectionRecordInput } from '../../generated/resolvers.ts';
import { badUserInput } from '../../errors.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { webStats } from '../common/statistics.ts';
import { deleteWebProtectionRecord, updateWebProtectionRecord, type WebProtectionRecordPatch } from './operations.ts';

/** A field the client gave, or undefined when it left it out; an explicit null cannot be stored by
 *  v1, so it is refused rather than silently dropped. */
function given<T>(value: T | null | undefined, field: keyof WebProtectionRecordInput): T | undefined {
  if (value === null) throw badUserInput(`input.${field} cannot be null; leave it out to keep the current value.`, `input.${field}`);
  return value;
}

/**
 * The edit as v1 takes it, field by field: only the fields the client gave go upstream (the edit
 * is partial). The `rest` check makes a field added to the input a compile error until it is mapped.
 */
function toWirePatch({ organizationId, fqdn, email, endpoint, services, ...rest }: WebProtectionRecordInput): WebProtectionRecordPatch {
  rest satisfies Record<string, never>;
  const patch: WebProtectionRecordPatch = {};
  const organization = given(organizationId, 'organizationId');
  if (organization !== undefined) patch.organization = Number(requirePositiveId(organization, 'input.organizationId'));
  const fields = { fqdn: given(fqdn, 'fqdn'), email: given(email, 'email'), endpoint: given(endpoint, 'endpoint'), services: given(services, 'services') };
  if (fields.fqdn !== undefined) patch.fqdn = fields.fqdn;
  if (fields.email !== undefined) patch.email = fields.email;
  if (fields.endpoint !== undefined) patch.endpoint = fields.endpoint;
  if (fields.services !== undefined) patch.services = fields.services;
  return patch;
}

export const webProtectionResolvers = {
  Mutation: {
    updateWebProtectionRecord: async (_parent, args, { upstream }) => ({
      webProtectionRecord: await updateWebProtectionRecord(upstream, requirePositiveId(args.id, 'id'), toWirePatch(args.input)),
    }),
    deleteWebProtectionRecord: async (_parent, args, { upstream }) => ({
      webProtectionRecord: await deleteWebProtectionRecord(upstream, requirePositiveId(args.id, 'id')),
    }),
  },
  WebProtectionRecord: {
    id: (record) => String(record.id),
  },
  WebProtectionCheck: {
    webStat: (check) => webStats(check.web_stat),
  },
} satisfies Resolvers;
