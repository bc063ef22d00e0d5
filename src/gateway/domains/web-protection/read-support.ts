// Whether the upstream reads web protection records. The seed's interface has no such read: the
// reference service offers one as an extension (rest-v1.md, "Extensions"), and the gateway must
// work without it. A deployment with only the seed's operations answers 404 (no such route) to
// the list, and 405 to a GET of one record (its path is known for PUT and DELETE); once the
// gateway has seen either, the read fields answer NOT_SUPPORTED at once, without a call, and the
// operator is told once. What the gateway learned belongs to its instance, never to a module.
import type { Logger } from 'pino';
import { ErrorCode, GatewayError, unwrapResolverError } from '../../errors.ts';
import type { Transport } from '../../upstream/transport.ts';
import { webProtectionRoutes } from './routes.ts';

const NOTICE =
  'the upstream has no read of web protection records (an extension of the reference service): webProtectionRecord and webProtectionRecords answer NOT_SUPPORTED; everything else works as usual';

/** How long the start's look at the list waits: it must not hold the start up. */
const START_CHECK_DEADLINE_MS = 2_000;

export class WebProtectionReadSupport {
  #state: 'unknown' | 'present' | 'absent' = 'unknown';

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  get known(): boolean {
    return this.#state !== 'unknown';
  }

  /** The reads are known to be missing: fail without calling. */
  check(): void {
    if (this.#state === 'absent') throw notSupported();
  }

  /** A read answered: the upstream has them. */
  present(): void {
    if (this.#state === 'unknown') this.#state = 'present';
  }

  /** The upstream answered that it has no such route. */
  absent(): void {
    if (this.#state === 'absent') return;
    this.#state = 'absent';
    this.logger.warn({ upstreamExtension: 'web protection reads' }, NOTICE);
  }

  /**
   * The error a read failed with, as the field reports it: an answer that says the route does
   * not exist (404 to the list, 405 to one record) is NOT_SUPPORTED; others pass unchanged.
   */
  failure(error: unknown, routeMissing: (status: number) => boolean): unknown {
    const status = upstreamStatus(error);
    if (status === undefined || !routeMissing(status)) return error;
    this.absent();
    return notSupported();
  }

  /**
   * At start, without a key: an upstream that routes before it authenticates answers 404 to a
   * route it lacks, which is said then. One that authenticates first answers 401 whatever the
   * route; the first read made with a key tells instead.
   */
  async checkAtStart(transport: Transport): Promise<void> {
    try {
      const response = await transport.pool.request({
        method: 'GET',
        path: `${transport.basePath}${webProtectionRoutes.listWebProtectionRecords.template}?limit=1`,
        headersTimeout: START_CHECK_DEADLINE_MS,
        bodyTimeout: START_CHECK_DEADLINE_MS,
        signal: AbortSignal.timeout(START_CHECK_DEADLINE_MS),
      });
      const text = await response.body.text();
      if (response.statusCode === 404 && isFailureEnvelope(text)) this.absent();
      else if (response.statusCode === 200) this.present();
    } catch {
      // An upstream that does not answer is said by the start's other check.
    }
  }
}

function isFailureEnvelope(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body === 'object' && body !== null && body.error !== 0 && body.error !== undefined;
  } catch {
    return false;
  }
}

function upstreamStatus(error: unknown): number | undefined {
  const original = unwrapResolverError(error);
  return original instanceof GatewayError ? original.extensions.upstream?.status : undefined;
}

export function notSupported(): GatewayError {
  return new GatewayError(
    'The upstream service has no read of web protection records (it offers only their edit and delete); updateWebProtectionRecord with an empty input returns one record you know the id of.',
    { code: ErrorCode.NOT_SUPPORTED },
  );
}
