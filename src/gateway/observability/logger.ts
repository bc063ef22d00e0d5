// The gateway's JSON logs (pino). The API key must never reach them: the GraphQL request line is
// built from chosen fields only, and redaction covers where a key could still ride in (request
// headers, options or contexts logged whole by mistake).
import type { Writable } from 'node:stream';
import { pino, stdTimeFunctions, type Logger } from 'pino';

// Names under which a key travels (as a header, an option, a context field), at any of the
// first four levels of a logged object: `{ req: { headers: { authorization } } }` is covered.
const KEY_FIELDS = ['apiKey', 'apikey', 'api_key', 'token', 'serviceToken', 'authorization', 'x-service-token', 'cookie'];

/** Every path whose value pino replaces with "[redacted]". */
export const REDACT_PATHS: readonly string[] = KEY_FIELDS.flatMap((field) => {
  const step = /^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`;
  return [step.replace(/^\./, ''), `*${step}`, `*.*${step}`, `*.*.*${step}`];
});

export interface LoggerOptions {
  /** pino level; `silent` turns the logs off. Default `info`. */
  level?: string;
  /** Where the JSON lines go (default stdout): tests pass a stream that keeps them. */
  stream?: Writable;
}

export function createLogger({ level = 'info', stream }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    // What log shippers and people read without a table: `"level":"warn"`, `"time":"2026-…Z"`.
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: stdTimeFunctions.isoTime,
  };
  return stream ? pino(options, stream) : pino(options);
}
