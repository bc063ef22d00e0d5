// What every resolver of one GraphQL request sees, made here and nowhere else: the key, the
// upstream client bound to it (over the transport its gateway owns), loaders whose caches live and
// die with the request, the request's budget of upstream calls, and its observation.
import type { GatewayConfig } from './config.ts';
import { createLoaders, type Loaders } from './domains/loaders.ts';
import { ControlIds } from './domains/security-frameworks/control-id.ts';
import type { TailHub } from './live-tail/hub.ts';
import type { ExportLinks } from './export-links/index.ts';
import { CallBudget } from './limits/call-budget.ts';
import type { GatewayMetrics } from './observability/metrics.ts';
import { RequestObservation } from './observability/observation.ts';
import type { UpstreamClient } from './upstream/client.ts';
import type { Transport } from './upstream/transport.ts';
import type { RequestCache, StaleReads } from './response-cache/index.ts';
import type { OperationTrace } from './observability/tracing/trace-types.ts';
import { WebProtectionReadSupport } from './domains/web-protection/read-support.ts';
import type { AuditLog } from './identity/audit.ts';
import type { Caller } from './identity/caller.ts';

export interface GatewayContext {
  requestId: string;
  /** The upstream key calls are made with, or null when there is none (upstream calls then fail UNAUTHENTICATED). */
  apiKey: string | null;
  /** Who the request is for (identity/): its key, and for a signed-in user, the user. */
  caller?: Caller;
  /** With AUTH_MODE oidc or both: where each mutation writes its audit line. */
  audit?: AuditLog;
  upstream: UpstreamClient;
  loaders: Loaders;
  budget: CallBudget;
  observation: RequestObservation;
  /** Aborted when the client goes away (or, for a subscription, when it ends). */
  signal: AbortSignal;
  /** The gateway's traffic tails, which subscriptions join. */
  tail: TailHub;
  /** The gateway's encoded control ids (Control.id). */
  controlIds: ControlIds;
  /** The gateway's export links: where they are kept, for how long they work, how one is minted. */
  exportLinks: ExportLinks;
  /** This gateway's origin as the client reached it (`http://host:port`), for links it hands out. */
  origin: string;
  /** With the response cache serving stale answers: the fields this request was served stale (`extensions.stale`). */
  stale?: StaleReads;
  /** With tracing on: this request's span. */
  trace?: OperationTrace;
  /** What the gateway learned of the upstream's read of web protection records. */
  webProtectionReads: WebProtectionReadSupport;
}

export interface ContextInput {
  requestId: string;
  apiKey: string | null;
  /** Who the request is for, once identity has checked its credential (its key is `apiKey`). */
  caller?: Caller;
  audit?: AuditLog;
  /** Aborted when the client goes away: the calls made on its behalf are cancelled. */
  signal: AbortSignal;
  origin: string;
  /** With tracing on: the request's span, parent of its upstream calls' spans. */
  trace?: OperationTrace;
}

/** Makes each request's context for one gateway instance. */
export function contextFactory(
  transport: Transport,
  metrics: GatewayMetrics,
  tail: TailHub,
  exportLinks: ExportLinks,
  settings: Pick<GatewayConfig, 'operationTimeoutMs' | 'limits'>,
  /** With the response cache on: what it gives the request of `apiKey`. */
  cache?: { forRequest(apiKey: string | null, partition?: string): RequestCache | undefined },
  /** The gateway's knowledge of the upstream's web protection reads (a silent one when not given). */
  webProtectionReads = new WebProtectionReadSupport({ warn: () => {} }),
): (input: ContextInput) => GatewayContext {
  const onRetry = (retry: { route: string }) => metrics.countRetry(retry.route);
  const controlIds = new ControlIds();
  return ({ requestId, apiKey, caller, audit, signal, origin, trace }) => {
    const observation = new RequestObservation(metrics);
    const budget = new CallBudget(settings.limits.maxUpstreamCalls);
    const cached = cache?.forRequest(apiKey, caller?.partition);
    const upstream = transport.client({
      // No key: the client refuses every call with UNAUTHENTICATED before sending anything.
      apiKey: apiKey ?? '',
      operationTimeoutMs: settings.operationTimeoutMs,
      signal,
      onCall: observation.onCall,
      onRetry,
      beforeCall: () => budget.take(),
      ...(cached ? { cache: cached.caller } : {}),
      ...(trace ? { trace } : {}),
    });
    return { requestId, apiKey, ...(caller ? { caller } : {}), ...(audit ? { audit } : {}), upstream, loaders: createLoaders(upstream), budget, observation, signal, tail, controlIds, exportLinks, origin, webProtectionReads, ...(cached?.stale ? { stale: cached.stale } : {}), ...(trace ? { trace } : {}) };
  };
}
