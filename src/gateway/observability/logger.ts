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
  /** Lines dropped because stdout's reader stalled (stdout only). */
  onDrop?(lines: number): void;
}

/**
 * The most stdout may hold unwritten before lines are dropped. pino's default destination writes
 * synchronously, and on a pipe whose reader stalled it retries for ever with the main thread
 * asleep (`Atomics.wait`): one stuck log collector froze every request and every signal. Written
 * asynchronously into a bounded buffer, a stalled reader costs lines, counted, never the service.
 */
export const MAX_UNWRITTEN_LOG_BYTES = 4 * 1024 * 1024;

export function createLogger({ level = 'info', stream, onDrop }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    // What log shippers and people read without a table: `"level":"warn"`, `"time":"2026-…Z"`.
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: stdTimeFunctions.isoTime,
  };
  if (stream) return pino(options, stream);
  // At exit pino writes what is left synchronously (there is no event loop then), retrying a full
  // pipe for ever: there, one attempt, and what the reader did not take is dropped.
  let exiting = false;
  const destination = pino.destination({ dest: 1, sync: false, maxLength: MAX_UNWRITTEN_LOG_BYTES, retryEAGAIN: () => !exiting });
  const flushSync = destination.flushSync.bind(destination);
  destination.flushSync = () => {
    exiting = true;
    try {
      flushSync();
    } catch {
      // The reader stalled: the rest is lost, the exit is not.
    }
  };
  destination.on('drop', (data: string | Buffer) => {
    let lines = 0;
    for (const byte of Buffer.isBuffer(data) ? data : Buffer.from(data)) if (byte === 0x0a) lines += 1;
    onDrop?.(Math.max(1, lines));
  });
  // A write error (the reader closed its end) must not crash the gateway: the lines are lost.
  destination.on('error', () => {});
  return pino(options, destination);
}
