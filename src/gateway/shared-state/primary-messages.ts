// What a worker and its primary say over the cluster's channel about the workers' local state:
// a call to one method of one store, and its answer, matched by id. Arguments and answers travel
// as JSON (the channel's serialization): stores take and give plain data.

export const STATE_CALL = 'gateway-state-call';
export const STATE_REPLY = 'gateway-state-reply';

export interface StateCall {
  type: typeof STATE_CALL;
  id: number;
  store: string;
  method: string;
  args: unknown[];
}

/** `ok` false: the primary could not answer (no such store, or the store failed): the worker uses its own. */
export interface StateReply {
  type: typeof STATE_REPLY;
  id: number;
  ok: boolean;
  result?: unknown;
}

export function isStateCall(message: unknown): message is StateCall {
  const call = message as Partial<StateCall> | null;
  return call?.type === STATE_CALL && typeof call.id === 'number' && typeof call.store === 'string' && typeof call.method === 'string' && Array.isArray(call.args);
}

export function isStateReply(message: unknown): message is StateReply {
  const reply = message as Partial<StateReply> | null;
  return reply?.type === STATE_REPLY && typeof reply.id === 'number' && typeof reply.ok === 'boolean';
}
