// This gateway's origin as a client reached it, for the links it hands out (export downloads).
// PUBLIC_URL, when set, is the answer (behind a proxy or TLS terminator the request's Host is the
// proxy's business). Otherwise the request's Host header, when it is a plain host[:port]: a link
// goes back to the client that sent that Host, so a forged one misleads no one else.
import type { IncomingMessage } from 'node:http';

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export function originResolver(publicUrl: string | undefined, fallback: () => string): (req: IncomingMessage) => string {
  if (publicUrl !== undefined) {
    const origin = new URL(publicUrl).origin;
    return () => origin;
  }
  return (req) => {
    const host = req.headers.host;
    return host !== undefined && HOST.test(host) ? `http://${host}` : fallback();
  };
}

/** A host as it goes in a URL: an IPv6 address in brackets. */
export function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
