// The upstream keys the gateway acts with for signed-in users (UPSTREAM_CREDENTIALS): one per
// organization, and the admin key. Read at start and again on SIGHUP, so that a key is rotated
// without a restart and without dropping connections: callers look their key up per request (and
// per subscription), never keep it. A file that cannot be read or breaks the format is refused as a
// whole, with one line naming the setting and what is wrong, and never echoing a key.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const KEY = z.string().trim().min(1).max(4096);

/** The file's format: `{"organizations": {"<organization id>": "<upstream key>", …}, "admin": "<upstream key>"}`. */
const CredentialsFile = z.strictObject({
  organizations: z.record(z.string().regex(/^[^\s]{1,100}$/), KEY),
  admin: KEY.optional(),
});
export type UpstreamCredentialsFile = z.infer<typeof CredentialsFile>;

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/** The file at `path`, checked; a CredentialsError naming UPSTREAM_CREDENTIALS otherwise. */
export function readCredentials(path: string): UpstreamCredentialsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CredentialsError(`UPSTREAM_CREDENTIALS: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialsError(`UPSTREAM_CREDENTIALS: "${path}" is not JSON`);
  }
  const parsed = CredentialsFile.safeParse(json);
  if (!parsed.success) {
    // Only the path of the first issue and its kind: a message quoting the value could quote a key.
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length === 0 ? 'the file' : issue.path.map(String).join('.');
    throw new CredentialsError(
      `UPSTREAM_CREDENTIALS: "${path}" breaks the format {"organizations": {"<organization id>": "<upstream key>"}, "admin": "<upstream key>"} at ${where} (${issue.code})`,
    );
  }
  return parsed.data;
}

/** The keys as last read: replaced whole by `reload`, so a request sees one file or the other. */
export class UpstreamCredentials {
  #current: UpstreamCredentialsFile;

  constructor(private readonly path: string) {
    this.#current = readCredentials(path);
  }

  /** Reads the file again; on a bad file the keys held stay, and the error says why. */
  reload(): void {
    this.#current = readCredentials(this.path);
  }

  organizationKey(organizationId: string): string | undefined {
    return Object.hasOwn(this.#current.organizations, organizationId) ? this.#current.organizations[organizationId] : undefined;
  }

  get adminKey(): string | undefined {
    return this.#current.admin;
  }
}
