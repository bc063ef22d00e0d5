// Traffic exports as the operator sees them: downloads started, how each ended, bytes sent.
// Registered on the registry the gateway gives it (its /metrics).
import { Counter, type Registry } from 'prom-client';

/** How a download ended: whole, cut by its client leaving, cut by the upstream, or refused before a byte. */
export type ExportEnd = 'finished' | 'client_gone' | 'upstream_failed' | 'refused';

export class ExportMetrics {
  readonly started: Counter;
  readonly ended: Counter<'outcome'>;
  readonly bytes: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.started = new Counter({ name: 'traffic_exports_started_total', help: 'Traffic export downloads started through an export link', registers });
    this.ended = new Counter({
      name: 'traffic_exports_total',
      help: 'Traffic export downloads by how they ended: finished, client_gone, upstream_failed (cut after the first byte) or refused (before it)',
      labelNames: ['outcome'],
      registers,
    });
    this.bytes = new Counter({ name: 'traffic_export_bytes_total', help: 'Bytes of traffic exports sent to clients', registers });
  }
}
