// A worker's local state kept by its primary (GATEWAY_WORKERS): each call to a local store goes
// over the cluster's channel to the primary, which answers from the one store every worker uses
// (primary-state.ts). Only Redis adapters falling back call it: with Redis up, hardly ever (a
// mutation's invalidation, so that the primary's cache serves nothing stale in a later outage; a
// link Redis does not know, which may have been minted during an outage).
// A primary that does not answer never holds a request: past a short deadline the call is
// answered from this worker's own memory, the loss is logged once, and every call is answered so
// until the primary answers a probe again (a primary that died ends its workers anyway).
import type { Logger } from 'pino';
import type { LocalState, LocalStore } from './local-state.ts';
import { isStateReply, STATE_CALL, type StateCall, type StateReply } from './primary-messages.ts';

/** Past this, the primary is taken not to answer: the call uses this worker's memory. */
const CALL_TIMEOUT_MS = 1_000;
/** While the primary does not answer, how often it is asked whether it does again. */
const PROBE_EVERY_MS = 500;
/** A call to no store: the primary answers it with a refusal, which is all a probe needs. */
const PROBE = { store: '', method: '' };

type Channel = Pick<NodeJS.Process, 'on' | 'send' | 'connected'>;

export class ThroughPrimary implements LocalState {
  #next = 0;
  readonly #waiting = new Map<number, (reply: StateReply | undefined) => void>();
  /** The primary did not answer: calls use this worker's memory until a probe is answered. */
  #unanswered = false;

  constructor(
    private readonly logger: Logger,
    private readonly channel: Channel = process,
    private readonly timeoutMs = CALL_TIMEOUT_MS,
  ) {
    channel.on('message', (message: unknown) => {
      if (isStateReply(message)) this.#waiting.get(message.id)?.(message);
    });
  }

  of<T extends object>(store: LocalStore<T>, own: T = store.make()): T {
    const shared: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const method of store.methods) {
      const ownMethod = (own as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!.bind(own);
      shared[method] = async (...args: unknown[]) => {
        const reply = await this.#call(store.name, method, args);
        return reply?.ok ? reply.result : ownMethod(...args);
      };
    }
    return shared as T;
  }

  #call(store: string, method: string, args: unknown[]): Promise<StateReply | undefined> {
    if (this.#unanswered || !this.channel.connected || this.channel.send === undefined) return Promise.resolve(undefined);
    return this.#send(store, method, args);
  }

  #send(store: string, method: string, args: unknown[]): Promise<StateReply | undefined> {
    // JSON turns a missing trailing argument into null, which a default parameter does not replace.
    const sent = [...args];
    while (sent.length > 0 && sent.at(-1) === undefined) sent.pop();
    const id = ++this.#next;
    return new Promise((resolve) => {
      const done = (reply: StateReply | undefined) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        if (reply === undefined) this.#unanswering();
        else this.#answering();
        resolve(reply);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      timer.unref();
      this.#waiting.set(id, done);
      const call: StateCall = { type: STATE_CALL, id, store, method, args: sent };
      try {
        this.channel.send!(call, undefined, {}, (error) => {
          if (error) done(undefined);
        });
      } catch {
        done(undefined);
      }
    });
  }

  #unanswering(): void {
    if (this.#unanswered) return;
    this.#unanswered = true;
    this.logger.warn(`the primary (GATEWAY_WORKERS) did not answer within ${this.timeoutMs} ms: while Redis is unreachable this worker keeps its state in its own memory until it does`);
    this.#probe();
  }

  /** One probe at a time, every PROBE_EVERY_MS, until one is answered (or the channel is gone). */
  #probe(): void {
    if (!this.channel.connected) return;
    void this.#send(PROBE.store, PROBE.method, []).then((reply) => {
      if (reply === undefined) setTimeout(() => this.#probe(), PROBE_EVERY_MS).unref();
    });
  }

  #answering(): void {
    if (!this.#unanswered) return;
    this.#unanswered = false;
    this.logger.info('the primary (GATEWAY_WORKERS) answers again: while Redis is unreachable the workers share their state through it');
  }
}
