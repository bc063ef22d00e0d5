// Web protection records: v1 offers a partial edit and a delete, both by id; the reference
// service also reads them (extensions E1–E2), which an upstream with only the seed's operations
// lacks: the reads are then NOT_SUPPORTED (read-support.ts).
import type { Resolvers, WebProtectionRecordInput } from '../../generated/resolvers.ts';
import { DEFAULT_PAGE_SIZES, resolveOffsetConnection } from '../../connections/connection.ts';
import type { GatewayContext } from '../../context.ts';
import { badUserInput, ErrorCode, gatewayError, isNotFound } from '../../errors.ts';
import { isPositiveIntegerId, requirePositiveId } from '../common/arguments.ts';
import { webStats } from '../common/statistics.ts';
import { deleteWebProtectionRecord, updateWebProtectionRecord, type WebProtectionRecordPatch } from './operations.ts';
import type { WireWebProtectionRecord } from './wire.ts';

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

/** A list that lacks the route answers 404 (there is no id in its path to be unknown). */
const listMissing = (status: number) => status === 404;
/** A read of one record that lacks the route answers 405: the path is known for PUT and DELETE. */
const readMissing = (status: number) => status === 405;

async function webProtectionRecord(id: string, { loaders, webProtectionReads }: GatewayContext): Promise<WireWebProtectionRecord | null> {
  webProtectionReads.check();
  // Ids that are not positive integers cannot exist.
  if (!isPositiveIntegerId(id)) return null;
  try {
    const record = await loaders.webProtectionRecordById.load(id);
    webProtectionReads.present();
    return record;
  } catch (error) {
    if (!isNotFound(error)) throw webProtectionReads.failure(error, readMissing);
  }
  // A 404 is an absent record, or a deployment that routes every unknown GET to 404: until the
  // list has answered once, one page of it tells which.
  if (!webProtectionReads.known) {
    try {
      await loaders.webProtectionPages.load({ limit: 1, offset: 0 });
      webProtectionReads.present();
    } catch (error) {
      throw webProtectionReads.failure(error, listMissing);
    }
  }
  return null;
}

function webProtectionRecords(args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null }, { loaders, webProtectionReads }: GatewayContext) {
  webProtectionReads.check();
  return resolveOffsetConnection(args, {
    binding: JSON.stringify(['web-protection']),
    defaultSize: DEFAULT_PAGE_SIZES.WebProtectionRecordConnection,
    fetch: async (offset, limit) => {
      try {
        const page = await loaders.webProtectionPages.load({ limit, offset });
        webProtectionReads.present();
        return { total: page.total, items: page.data };
      } catch (error) {
        throw webProtectionReads.failure(error, listMissing);
      }
    },
  });
}

/** A mutation's answer is the record as it now is (null after a delete): later reads of the operation see it. */
function remember({ loaders }: GatewayContext, id: string, record: WireWebProtectionRecord, deleted: boolean): WireWebProtectionRecord {
  loaders.webProtectionRecordById.clear(id);
  if (deleted) loaders.webProtectionRecordById.prime(id, gatewayError(ErrorCode.NOT_FOUND, `Web protection record ${id} was deleted.`));
  else loaders.webProtectionRecordById.prime(id, record);
  loaders.webProtectionPages.clearAll();
  return record;
}

export const webProtectionResolvers = {
  Query: {
    webProtectionRecord: (_parent, args, context) => webProtectionRecord(args.id, context),
    webProtectionRecords: (_parent, args, context) => webProtectionRecords(args, context),
  },
  Mutation: {
    async updateWebProtectionRecord(_parent, args, context) {
      const id = requirePositiveId(args.id, 'id');
      const record = await updateWebProtectionRecord(context.upstream, id, toWirePatch(args.input));
      return { webProtectionRecord: remember(context, id, record, false) };
    },
    async deleteWebProtectionRecord(_parent, args, context) {
      const id = requirePositiveId(args.id, 'id');
      const record = await deleteWebProtectionRecord(context.upstream, id);
      return { webProtectionRecord: remember(context, id, record, true) };
    },
  },
  WebProtectionRecord: {
    id: (record) => String(record.id),
  },
  WebProtectionCheck: {
    webStat: (check) => webStats(check.web_stat),
  },
} satisfies Resolvers;
