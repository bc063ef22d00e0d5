// The small pieces of plain HTTP the server needs besides Apollo: the client's key from its
// headers, and a JSON answer.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The client's key: `X-Service-Token`, or `Authorization: Bearer <key>`. */
export function apiKeyOf(req: IncomingMessage): string | null {
  const token = req.headers['x-service-token'];
  if (typeof token === 'string' && token.trim() !== '') return token.trim();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1] ?? null;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}


/** The query string, as WHATWG URL parsing gives it; most requests (POSTs) have none to parse. */
export function requestSearch(target: string): string {
  return target.includes('?') ? new URL(target, 'http://gateway').search : '';
}
