// The API key of a WebSocket connection. Browsers cannot set headers on a WebSocket, so the key
// travels in `connection_init`'s payload under the header names HTTP uses (any case), or nested
// under `headers` as some clients send them.
const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function keyFromConnectionParams(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params) return null;
  const direct = keyFromHeaders(params);
  if (direct) return direct;
  const nested = params.headers;
  return nested && typeof nested === 'object' && !Array.isArray(nested) ? keyFromHeaders(nested as Record<string, unknown>) : null;
}

function keyFromHeaders(headers: Record<string, unknown>): string | null {
  let token: unknown;
  let authorization: unknown;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-service-token') token = value;
    else if (lower === 'authorization') authorization = value;
  }
  if (typeof token === 'string' && token.trim() !== '') return token.trim();
  if (typeof authorization === 'string') return BEARER.exec(authorization)?.[1] ?? null;
  return null;
}
