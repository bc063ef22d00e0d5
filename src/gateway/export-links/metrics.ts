// Traffic exports as the operator sees them: downloads started, under way, how each ended, bytes
// sent. Registered on the registry the gateway gives it (its /metrics).
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * How a download ended: whole, cut by its client leaving, cut because its client read nothing for
 * EXPORT_IDLE_TIMEOUT_S, cut by the upstream, or refused before a byte.
 */
export type ExportEnd = 'finished' | 'client_gone' | 'client_idle' | 'upstream_failed' | 'refused';

export class ExportMetrics {
  readonly started: Counter;
  readonly ended: Counter<'outcome'>;
  readonly bytes: Counter;

  constructor(registry: Registry, active: () => number) {
    const registers = [registry];
    this.started = new Counter({ name: 'traffic_exports_started_total', help: 'Traffic export downloads started through an export link', registers });
    this.ended = new Counter({
      name: 'traffic_exports_total',
      help: 'Traffic export downloads by how they ended: finished, client_gone, client_idle (cut: its client read nothing), upstream_failed (cut after the first byte) or refused (before it)',
      labelNames: ['outcome'],
      registers,
    });
    this.bytes = new Counter({ name: 'traffic_export_bytes_total', help: 'Bytes of traffic exports sent to clients', registers });
    new Gauge({
      name: 'traffic_exports_active',
      help: 'Traffic export downloads under way (bounded by EXPORT_MAX_CONCURRENT)',
      registers,
      collect() {
        this.set(active());
      },
    });
  }
}
