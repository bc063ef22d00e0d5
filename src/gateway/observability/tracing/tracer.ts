// OpenTelemetry for one gateway instance, loaded only when tracing is on (settings.ts): its own
// tracer provider (never registered globally: two gateways in one process trace apart), a batch
// processor and the OTLP/HTTP exporter. Contexts are passed by hand, from a request's span to its
// upstream attempts, so no async-hooks context manager runs on every await.
//
// What goes into attributes is named here and nowhere else: operation name and type, outcome and
// error codes, cost, route templates (no ids), statuses, attempts. Never a key, a token, a
// document or a variable's value.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingSettings } from './settings.ts';
import type { GatewayTracing, OperationTrace } from './trace-types.ts';

const TRACER_NAME = 'security-graphql-gateway';

export function startTracing(settings: TracingSettings): GatewayTracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) over the gateway's own name.
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }), { scheduledDelayMillis: settings.scheduleDelayMs })],
  });
  const tracer = provider.getTracer(TRACER_NAME);
  const propagator = new W3CTraceContextPropagator();

  return {
    operation(headers): OperationTrace {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan('GraphQL operation', { kind: SpanKind.SERVER }, parent);
      const own = trace.setSpan(ROOT_CONTEXT, span);
      if (!span.isRecording()) {
        // Not sampled (the client's decision, or the sampler's): no span is made, but the
        // decision travels upstream in the request's own traceparent, as W3C Trace Context asks.
        const headers: Record<string, string> = {};
        propagator.inject(own, headers, defaultTextMapSetter);
        return { attempt: () => ({ headers, end() {} }), describe() {}, identify() {}, end() {} };
      }
      return {
        attempt(route, attempt) {
          const child = tracer.startSpan(
            route.name,
            {
              kind: SpanKind.CLIENT,
              attributes: {
                'http.request.method': route.method,
                'url.template': route.template,
                // OpenTelemetry's name for a retry's number (0 for a call's first attempt).
                'http.request.resend_count': attempt - 1,
              },
            },
            own,
          );
          const carrier: Record<string, string> = {};
          propagator.inject(trace.setSpan(ROOT_CONTEXT, child), carrier, defaultTextMapSetter);
          return {
            headers: carrier,
            end(record) {
              if (record.status !== null) child.setAttribute('http.response.status_code', record.status);
              child.setAttribute('gateway.upstream.outcome', record.outcome);
              if (record.cause !== undefined) child.setAttribute('gateway.upstream.cause', record.cause);
              if (record.outcome !== 'ok') child.setStatus({ code: SpanStatusCode.ERROR, message: record.outcome });
              child.end();
            },
          };
        },
        describe(outcome) {
          if (outcome.type !== null) span.updateName(outcome.name === null ? outcome.type : `${outcome.type} ${outcome.name}`);
          if (outcome.name !== null) span.setAttribute('graphql.operation.name', outcome.name);
          if (outcome.type !== null) span.setAttribute('graphql.operation.type', outcome.type);
          span.setAttribute('gateway.outcome', outcome.outcome);
          if (outcome.errorCodes.length > 0) span.setAttribute('gateway.error_codes', outcome.errorCodes);
          if (outcome.estimatedCost !== null) span.setAttribute('gateway.cost.estimated', outcome.estimatedCost);
          span.setAttribute('gateway.cost.upstream_calls', outcome.upstreamCalls);
          if (outcome.outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.outcome });
        },
        identify(sub) {
          // OpenTelemetry's attribute for the user: the token's subject, and nothing else of it.
          span.setAttribute('enduser.id', sub);
        },
        end(httpStatus) {
          span.setAttribute('http.response.status_code', httpStatus);
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
