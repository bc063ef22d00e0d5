// The primary's side of its workers' local state (GATEWAY_WORKERS): one instance of each feature's
// local store, made on a worker's first call to it, answering every worker's calls. While Redis is
// unreachable the workers thus share one cache and its invalidations, one set of export links with
// their quotas, one throttle bucket per key, one set of persisted queries, as a lone gateway
// would hold them; with Redis up they hardly call it. The stores are the features' own
// descriptions (local-state.ts): nothing here knows a feature.
import type { Worker } from 'node:cluster';
import type { AnyLocalStore } from './local-state.ts';
import { isStateCall, STATE_REPLY, type StateCall, type StateReply } from './primary-messages.ts';

type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** How the primary answers its workers: attach it to each worker it starts. */
export function primaryState(stores: readonly AnyLocalStore[]): (worker: Worker) => void {
  const described = new Map(stores.map((store) => [store.name, store]));
  const made = new Map<string, Methods>();

  const answer = async (call: StateCall): Promise<StateReply> => {
    const store = described.get(call.store);
    if (store === undefined || !store.methods.includes(call.method)) return { type: STATE_REPLY, id: call.id, ok: false };
    let instance = made.get(store.name);
    if (instance === undefined) made.set(store.name, (instance = store.make() as Methods));
    try {
      return { type: STATE_REPLY, id: call.id, ok: true, result: await instance[call.method]!.apply(instance, call.args) };
    } catch {
      return { type: STATE_REPLY, id: call.id, ok: false };
    }
  };

  return (worker) => {
    worker.on('message', (message: unknown) => {
      if (!isStateCall(message)) return;
      void answer(message).then((reply) => {
        // A worker gone meanwhile has no one waiting.
        if (worker.isConnected()) worker.send(reply, undefined, () => {});
      });
    });
  };
}
