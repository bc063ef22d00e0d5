// Once, at start: an upstream that does not answer is said plainly to the operator (the gateway
// serves anyway: the upstream may come up later, and /readyz tells when it does), and whether it
// serves reads of web protection records is learned.
import type { Logger } from 'pino';
import type { WebProtectionReadSupport } from '../domains/web-protection/read-support.ts';
import type { Transport } from '../upstream/transport.ts';

export function checkUpstreamAtStart(transport: Transport, webProtectionReads: WebProtectionReadSupport, logger: Logger): Promise<void> {
  return Promise.all([
    transport.answers().then(
      (answer) => {
        if (!answer.ok) logger.warn({ cause: answer.cause }, `the upstream (UPSTREAM_URL) does not answer: ${answer.cause}; serving anyway, /readyz is 503 until it does`);
      },
      () => {},
    ),
    webProtectionReads.checkAtStart(transport),
  ]).then(() => {});
}
