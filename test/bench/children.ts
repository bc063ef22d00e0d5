// The benchmark's child processes: each server runs in its own Node process (its own event loop
// and its own /proc figures), started with tsx's loader directly so that the child's pid is the
// server's (the `tsx` command would put a wrapper process in between). The gateway runs as it is
// deployed: `npm start`'s bundle, dist/main.js, under plain node. Parent and child talk over
// the IPC channel; every child is stopped on exit, error or Ctrl-C.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a child sends once it listens. */
export interface ReadyMessage {
  type: 'ready';
  url: string;
}

interface Reply {
  type: 'reply';
  id: number;
  [field: string]: unknown;
}

const TSX_LOADER = import.meta.resolve('tsx');
const children = new Set<BenchChild>();

export class BenchChild {
  readonly #pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #exited: Promise<number | null>;
  exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    this.#exited = new Promise((resolve) => {
      process.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : 0);
        children.delete(this);
        const error = new Error(`${name} exited (${signal ?? `code ${code}`})`);
        for (const waiter of this.#pending.values()) waiter.reject(error);
        this.#pending.clear();
        resolve(code);
      });
    });
    process.on('message', (message: unknown) => {
      const reply = message as Reply;
      if (reply?.type !== 'reply') return;
      this.#pending.get(reply.id)?.resolve(reply);
      this.#pending.delete(reply.id);
    });
  }

  get pid(): number {
    if (this.process.pid === undefined) throw new Error(`${this.name} has no pid`);
    return this.process.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Waits for the child's ready message, failing when it exits first or takes too long. */
  ready(timeoutMs: number): Promise<ReadyMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${this.name} not ready after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const onMessage = (message: unknown) => {
        if ((message as ReadyMessage)?.type === 'ready') done(undefined, message as ReadyMessage);
      };
      const onExit = (code: number | null, signal: string | null) =>
        done(new Error(`${this.name} exited before it was ready (${signal ?? `code ${code}`}); see its output above`));
      const done = (error?: Error, message?: ReadyMessage) => {
        clearTimeout(timer);
        this.process.off('message', onMessage);
        this.process.off('exit', onExit);
        if (error) reject(error);
        else resolve(message!);
      };
      this.process.on('message', onMessage);
      this.process.once('exit', onExit);
    });
  }

  /** One request over IPC, answered by the child with the same id. */
  ask<T extends object>(command: string, fields: Record<string, unknown> = {}): Promise<T & Reply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (!this.running) return reject(new Error(`${this.name} is not running`));
      this.#pending.set(id, { resolve: resolve as (reply: Reply) => void, reject });
      this.process.send({ type: 'ask', id, command, ...fields });
    });
  }

  /** SIGTERM (the child closes its server and database), SIGKILL after a grace period. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * Starts `entry` as a child: a TypeScript file beside this one (with tsx's loader), or a URL of a
 * compiled JavaScript file (plain node, as deployed).
 */
export function startChild(
  name: string,
  entry: string | URL,
  env: Record<string, string>,
  /** `output`: where the child's stdout goes: the terminal (default), nowhere, or a file descriptor. */
  options: { output?: 'inherit' | 'ignore' | number; nodeOptions?: string[] } = {},
): BenchChild {
  const compiled = entry instanceof URL;
  const child = fork(fileURLToPath(compiled ? entry : new URL(entry, import.meta.url)), [], {
    execArgv: [...(compiled ? [] : ['--import', TSX_LOADER]), ...(options.nodeOptions ?? [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', options.output ?? 'inherit', 'inherit', 'ipc'],
  });
  const handle = new BenchChild(name, child);
  children.add(handle);
  return handle;
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((child) => child.stop()));
}

let guarded = false;

/** Stops every child however the run ends: normal exit, an error, Ctrl-C or SIGTERM. */
export function guardChildren(): void {
  if (guarded) return;
  guarded = true;
  process.once('exit', () => {
    for (const child of children) child.process.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the benchmark's processes\n`);
      void stopAllChildren().finally(() => process.exit(130));
    });
  }
}

/**
 * In a child: answer the parent's requests with `handlers`, and exit when the parent goes away
 * (its IPC channel closes), so no server outlives the run.
 */
export function serveParent(
  handlers: Record<string, (message: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>>,
  stop: () => Promise<void>,
): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('this entry runs as a child of test/bench/run.ts (it needs an IPC channel)');
  process.on('message', (raw: unknown) => {
    const message = raw as { type?: string; id?: number; command?: string };
    if (message?.type !== 'ask' || typeof message.id !== 'number') return;
    const handler = handlers[message.command ?? ''];
    void Promise.resolve(handler ? handler(message as Record<string, unknown>) : { error: `unknown command ${message.command}` }).then(
      (fields) => send({ ...fields, type: 'reply', id: message.id }),
      (error: unknown) => send({ type: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  let stopping = false;
  const end = (code: number) => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => end(0));
  // Ctrl-C reaches the whole process group: the parent decides when children stop.
  process.on('SIGINT', () => {});
  process.on('disconnect', () => end(0));
}

export function tellParentReady(url: string): void {
  const message: ReadyMessage = { type: 'ready', url };
  process.send?.(message);
}
