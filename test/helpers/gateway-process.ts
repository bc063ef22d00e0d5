// A gateway as a process of its own, started from either of the two forms it ships in: the bundle
// `npm start` runs (dist/main.js under plain node, with the start script's flags and variables)
// or the sources (`npm run dev`: src/main.ts through tsx's loader, with the `source` condition so
// that the workspace package resolves to its TypeScript too). Both are forked with an IPC channel:
// the gateway says where it listens once it answers (src/main.ts), and stops when the channel
// closes, so no process outlives the suite that started it. Its output is kept: the JSON logs on
// stdout, anything else on stderr.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BUNDLE, REPO, startEnv, startFlags } from './start-command.ts';

export type GatewayForm = 'bundle' | 'sources';

export interface GatewayProcess {
  form: GatewayForm;
  child: ChildProcess;
  pid: number;
  /** The GraphQL URL, on 127.0.0.1. */
  url: string;
  output: { stdout: string; stderr: string };
  /** SIGTERM, then the exit code (SIGKILL past `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

const SOURCES = join(REPO, 'src', 'main.ts');
const TSX_LOADER = createRequire(import.meta.url).resolve('tsx');
/** The sources' first start transforms several hundred files on a shared machine. */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts the gateway in `form` with `env` over a clean environment (PATH and HOME, PORT=0, npm
 * start's variables): nothing of the test runner's own (NODE_ENV=test, …) reaches it.
 */
export async function startGatewayProcess(form: GatewayForm, env: Record<string, string>, cwd = REPO): Promise<GatewayProcess> {
  const entry = form === 'bundle' ? BUNDLE : SOURCES;
  const execArgv = form === 'bundle' ? startFlags() : ['--import', TSX_LOADER, '--conditions=source', ...startFlags()];
  const child = fork(entry, [], {
    cwd,
    execArgv,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...startEnv(), PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway (${form}) said no ready within ${START_TIMEOUT_MS / 1000} s; stderr: ${output.stderr}`));
    }, START_TIMEOUT_MS);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type !== 'ready' || typeof message.url !== 'string') return;
      clearTimeout(timer);
      resolve(message.url.replace('localhost', '127.0.0.1'));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway (${form}) exited with ${code} before it was ready; stderr: ${output.stderr}`));
    });
  });
  return {
    form,
    child,
    pid: child.pid!,
    url,
    output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
