// The credential a client sent, as it sent it: `X-Service-Token`, or `Authorization: Bearer …`,
// from HTTP headers or from a WebSocket's `connection_init` payload (under the same names, any
// case, or nested under `headers` as some clients send them).
export interface Credential {
  /** `service-token`: X-Service-Token (always a key); `bearer`: Authorization's value (a key or a token). */
  kind: 'service-token' | 'bearer';
  value: string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function credentialOfHeaders(headers: Readonly<Record<string, unknown>>): Credential | null {
  let token: unknown;
  let authorization: unknown;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-service-token') token = value;
    else if (lower === 'authorization') authorization = value;
  }
  if (typeof token === 'string' && token.trim() !== '') return { kind: 'service-token', value: token.trim() };
  const bearer = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
  return bearer ? { kind: 'bearer', value: bearer } : null;
}

export function credentialOfConnectionParams(params: Readonly<Record<string, unknown>> | undefined): Credential | null {
  if (!params) return null;
  const direct = credentialOfHeaders(params);
  if (direct) return direct;
  const nested = params.headers;
  return nested && typeof nested === 'object' && !Array.isArray(nested) ? credentialOfHeaders(nested as Record<string, unknown>) : null;
}
