// GATEWAY_WORKERS=N: N gateway processes on one port (Node's cluster: the primary holds the
// listening socket and hands connections to the workers), so that one machine uses all its cores.
// The primary serves nothing itself: it starts the embedded reference service when there is no
// upstream (one service for all workers), starts the workers, says ready once they all listen,
// starts a worker again if one dies, and on SIGTERM/SIGINT drains every worker before it exits.
// While Redis is unreachable it also keeps the state the workers share (the state's own folder,
// src/gateway/shared-state/, says how), so that they still behave as one gateway.
import cluster, { type Worker } from 'node:cluster';

/** Set by the primary for its workers: the embedded service's demo key (they did not start it). */
export const WORKER_DEMO_KEY = 'GATEWAY_WORKER_DEMO_KEY';
/** A worker that dies this soon after its start is not started again (a crash loop). */
const MIN_LIFETIME_MS = 5_000;

export interface WorkersOptions {
  workers: number;
  /** What the workers' environment adds: the embedded service's URL and demo key. */
  env: Record<string, string>;
  /** Once every worker listens, with the URL they listen at. */
  onReady(url: string): void;
  /** Every worker stopped: the primary cleans up and exits with `code`. */
  onStopped(code: number): Promise<void>;
  log(message: string): void;
  /** How long the workers' stop may take; past it, those still running are killed. */
  stopTimeoutMs: number;
  /** Hears each worker started (the primary answers its calls for the local state it keeps). */
  onWorker?(worker: Worker): void;
}

export function isWorker(): boolean {
  return cluster.isWorker;
}

export function runWorkers(options: WorkersOptions): void {
  let stopping = false;
  let exitCode = 0;
  let readyUrl: string | undefined;
  const ready = new Set<number>();
  const startedAt = new Map<number, number>();

  const fork = (): Worker => {
    const worker = cluster.fork(options.env);
    startedAt.set(worker.id, Date.now());
    options.onWorker?.(worker);
    worker.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type !== 'ready' || typeof message.url !== 'string') return;
      ready.add(worker.id);
      if (readyUrl === undefined && ready.size === options.workers) {
        readyUrl = message.url;
        options.onReady(message.url);
      }
    });
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    ready.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) void options.onStopped(exitCode);
      return;
    }
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    if (lived < MIN_LIFETIME_MS && readyUrl === undefined) {
      options.log(`a gateway worker stopped during its start (${signal ?? `exit ${code}`}); stopping`);
      void stop(1);
      return;
    }
    options.log(`a gateway worker stopped (${signal ?? `exit ${code}`}); starting another`);
    fork();
  });

  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    if (workers.length === 0) return options.onStopped(exitCode);
    // Each worker is told to stop as a lone gateway is: it stops starting requests at once (kept-
    // alive connections included: their answers say `Connection: close`), finishes those in
    // flight and exits. Only disconnecting it would wait for its kept-alive connections to end
    // on their own, which endless keep-alive traffic never does. A worker that also got the
    // signal is already at it.
    for (const worker of workers) worker.process.kill('SIGTERM');
    // Past the deadline (a worker that hangs), whatever is left is killed.
    setTimeout(() => {
      const left = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
      if (left.length === 0) return;
      options.log(`${left.length} gateway worker(s) still running after STOP_TIMEOUT_MS (${options.stopTimeoutMs} ms): killed`);
      for (const worker of left) worker.process.kill('SIGKILL');
      exitCode = 1;
    }, options.stopTimeoutMs).unref();
  };
  // Ctrl-C reaches every process of the group: the workers drain on their own, the primary waits.
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  if (process.send) process.on('disconnect', () => void stop());

  for (let i = 0; i < options.workers; i++) fork();
}
