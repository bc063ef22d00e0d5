// The gateway's JSON logs (pino). The API key must never reach them: the GraphQL request line is
// built from chosen fields only, and redaction covers where a key could still ride in (request
// headers, options or contexts logged whole by mistake).
import type { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

// Names under which a key travels (as a header, an option, a context field), at any of the
// first four levels of a logged object: `{ req: { headers: { authorization } } }` is covered.
const KEY_FIELDS = ['apiKey', 'apikey', 'api_key', 'token', 'serviceToken', 'authorization', 'x-service-token', 'cookie'];

/** Every path whose value pino replaces with "[redacted]". */
export const REDACT_PATHS: readonly string[] = KEY_FIELDS.flatMap((field) => {
  const step = /^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`;
  return [step.replace(/^\./, ''), `*${step}`, `*.*${step}`, `*.*.*${step}`];
});

/** The longest a log line waits in the batch before it is written. */
const LOG_FLUSH_MS = 200;

export interface LoggerOptions {
  /** pino level; `silent` turns the logs off. Default `info`. */
  level?: string;
  /** Where the JSON lines go (default stdout, written in batches): tests pass a stream that keeps them. */
  stream?: Writable;
}

export function createLogger({ level = 'info', stream }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
  };
  if (stream) return pino(options, stream);
  // To stdout in batches: written one by one, every request's line is a system call on that
  // request's path. Lines gather up to 4 KB (a few requests' worth under load) and wait at most
  // LOG_FLUSH_MS when traffic is light; pino flushes what is left when the process exits.
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS }));
}
