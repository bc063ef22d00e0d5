// A GraphQL request refused before Apollo reads it (a body too large or malformed, an untrusted
// document): its code counted and logged like an answered operation's, and given to its span.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { OperationTrace } from '../observability/tracing/trace-types.ts';
import { sendJson } from './plain.ts';

export interface Refused {
  status: number;
  answer: { errors: readonly { message?: string; extensions?: Record<string, unknown> }[] };
  headers?: Record<string, string>;
}

export function refusal(metrics: GatewayMetrics, logger: Logger) {
  return (res: ServerResponse, requestId: string, trace: OperationTrace | undefined, { status, answer, headers }: Refused): void => {
    const code = String(answer.errors[0]?.extensions?.code ?? 'BAD_REQUEST');
    metrics.countOperation(null, code);
    logger.info({ requestId, operation: null, outcome: 'error', errors: [code], status }, 'graphql request refused');
    trace?.describe({ name: null, type: null, outcome: code, errorCodes: [code], estimatedCost: null, upstreamCalls: 0 });
    sendJson(res, status, answer, headers);
  };
}
