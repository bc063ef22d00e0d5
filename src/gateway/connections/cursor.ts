// Opaque cursors: base64url of the JSON `[1, offset, hash]`, where 1 is the format's version and
// hash a short digest of the list's binding (filter + order + parent, built by the caller). A cursor
// used under another binding, or that is not one of ours, is BAD_USER_INPUT, never a wrong page.
import { createHash } from 'node:crypto';
import { badUserInput } from '../errors.ts';

const VERSION = 1;
const MAX_CURSOR_LENGTH = 128;

export interface CursorCodec {
  encode(offset: number): string;
  /** The offset the cursor names; `argument` (`after`/`before`) names it in the error. */
  decode(cursor: string, argument: string): number;
}

/** Bindings hashed lately: the same lists are paged over and over. Long ones (a client's search text) are not kept. */
const hashes = new Map<string, string>();
const MAX_REMEMBERED_HASHES = 1_000;
const MAX_REMEMBERED_BINDING_LENGTH = 256;

/** 72 bits of SHA-256: enough to tell lists apart, short enough for a cursor. */
function bindingHash(binding: string): string {
  let hash = hashes.get(binding);
  if (hash === undefined) {
    hash = createHash('sha256').update(binding).digest('base64url').slice(0, 12);
    if (binding.length <= MAX_REMEMBERED_BINDING_LENGTH) {
      if (hashes.size >= MAX_REMEMBERED_HASHES) hashes.clear();
      hashes.set(binding, hash);
    }
  }
  return hash;
}

function encodeWith(hash: string, offset: number): string {
  return Buffer.from(JSON.stringify([VERSION, offset, hash])).toString('base64url');
}

export function cursorCodec(binding: string): CursorCodec {
  // Hashed when a cursor is first made or read: a page whose cursors nobody asks for needs none.
  let hash: string | undefined;
  const bound = () => (hash ??= bindingHash(binding));
  return {
    encode: (offset) => encodeWith(bound(), offset),
    decode(cursor, argument) {
      const parsed = parse(cursor);
      if (parsed === undefined) throw badUserInput(`The cursor in ${argument} is not valid`, argument);
      if (parsed.hash !== bound()) {
        throw badUserInput(
          `The cursor in ${argument} was made for another filter, order or parent; start again without it`,
          argument,
        );
      }
      return parsed.offset;
    },
  };
}

function parse(cursor: string): { offset: number; hash: string } | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [version, offset, hash] = value as unknown[];
  if (version !== VERSION || !Number.isSafeInteger(offset) || (offset as number) < 0 || typeof hash !== 'string') {
    return undefined;
  }
  // Only the exact bytes we issue: no alternative spellings of the same cursor.
  if (encodeWith(hash, offset as number) !== cursor) return undefined;
  return { offset: offset as number, hash };
}
