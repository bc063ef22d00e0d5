// The live traffic tail as the operator sees it: subscriptions and pollers now, and what the
// pollers have done. Registered on the registry the gateway gives it (its /metrics).
import { Counter, Gauge, type Registry } from 'prom-client';

const OUTCOME = /^(ok|followed|[A-Z][A-Z_]{0,63})$/;

/** What the gauges read when scraped. */
export interface TailCounts {
  subscriptions: number;
  pollers: number;
}

export class TailMetrics {
  readonly subscriptions: Gauge;
  readonly pollers: Gauge;
  readonly polls: Counter<'outcome'>;
  readonly delivered: Counter;
  #source: () => TailCounts = () => ({ subscriptions: 0, pollers: 0 });

  constructor(registry: Registry) {
    const registers = [registry];
    const source = () => this.#source();
    this.subscriptions = new Gauge({
      name: 'traffic_tail_subscriptions',
      help: 'Active traffic log subscriptions',
      registers,
      collect() {
        this.set(source().subscriptions);
      },
    });
    this.pollers = new Gauge({
      name: 'traffic_tail_pollers',
      help: 'Traffic log pollers running (one per device and filter)',
      registers,
      collect() {
        this.set(source().pollers);
      },
    });
    this.polls = new Counter({
      name: 'traffic_tail_polls_total',
      help: 'Polls of a device traffic log by the tail pollers, by outcome (ok, or the error code; followed: what another replica polled, heard through Redis)',
      labelNames: ['outcome'],
      registers,
    });
    this.delivered = new Counter({ name: 'traffic_tail_entries_delivered_total', help: 'Traffic log entries handed to subscriptions', registers });
  }

  /** Where the gauges read their values: the gateway's tail hub. */
  watch(source: () => TailCounts): void {
    this.#source = source;
  }

  countPoll(outcome: string, delivered: number): void {
    this.polls.inc({ outcome: OUTCOME.test(outcome) ? outcome : 'OTHER' });
    if (delivered > 0) this.delivered.inc(delivered);
  }
}
