import type { ServerResponse } from 'node:http';
import type { EnvelopeMessage } from '../records.ts';

function writeJson(res: ServerResponse, status: number, payload: object, headers: Record<string, string>): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/** A success envelope: `error: 0`, `messages: []`, then the operation's fields. */
export function sendSuccess(res: ServerResponse, status: number, fields: Record<string, unknown>): void {
  writeJson(res, status, { error: 0, messages: [], ...fields }, {});
}

/** A failure envelope: `error: 1` and the messages, nothing else. */
export function sendFailure(
  res: ServerResponse,
  status: number,
  messages: EnvelopeMessage[],
  headers: Record<string, string> = {},
): void {
  writeJson(res, status, { error: 1, messages }, headers);
}
