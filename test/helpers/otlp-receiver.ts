// A real OTLP/HTTP trace receiver for tests: an HTTP server on port 0 that takes what an
// OpenTelemetry exporter POSTs to /v1/traces (JSON, gzip or not), decodes it into spans, and keeps
// the raw bodies (to search them for what must never be exported).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind number: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  service: unknown;
}

export interface OtlpReceiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  spans: ReceivedSpan[];
  bodies: string[];
  /** Waits until `count` spans matching `filter` arrived (bounded). */
  waitFor(count: number, filter?: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

function value(any: AnyValue): unknown {
  if (any.stringValue !== undefined) return any.stringValue;
  if (any.intValue !== undefined) return Number(any.intValue);
  if (any.boolValue !== undefined) return any.boolValue;
  if (any.doubleValue !== undefined) return any.doubleValue;
  if (any.arrayValue !== undefined) return (any.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributes(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value: v }) => [key, value(v)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as {
        resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
      };
      for (const resourceSpan of body.resourceSpans ?? []) {
        const service = attributes(resourceSpan.resource?.attributes)['service.name'];
        for (const scope of resourceSpan.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId as string,
              spanId: span.spanId as string,
              parentSpanId: (span.parentSpanId as string | undefined) || undefined,
              name: span.name as string,
              kind: span.kind as number,
              attributes: attributes(span.attributes as { key: string; value: AnyValue }[]),
              status: (span.status as ReceivedSpan['status']) ?? {},
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(count, filter = () => true, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (spans.filter(filter).length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} spans, got ${spans.filter(filter).length}: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return spans.filter(filter);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
