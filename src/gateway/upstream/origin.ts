// The key of the per-origin state (pool, circuit breaker, retry budget): scheme, host and port.
// V1Client hands over the URL it parsed once; parsing it again for each call cost more than the
// rest of the lookup.

export function originOf(origin: string | URL): string {
  return typeof origin === 'string' ? new URL(origin).origin : origin.origin;
}
