// Start to first answered query: the gateway as npm start runs it (dist/main.js) started anew in
// front of the running v1, timed from its process's spawn to the first GraphQL answer with data,
// as an orchestrator's readiness probe or a scaled-out replica's first client sees it. The first
// start after the build is reported on its own (the bundle may not be in the page cache yet);
// then several starts, whose median is judged.
// The starts run in the bench's environment less what belongs to the machine rather than to the
// gateway (MACHINE_ONLY); where the machine sets any of it, starts with the environment as it is
// are timed in turn with them and reported beside, so that the two figures share the same moments.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startEnv, startFlags } from '../helpers/start-command.ts';
import type { BenchSettings } from './settings.ts';
import { GATEWAY_ENTRY } from './stack.ts';

const STARTS = 5;
/** How long one start may take before the run gives up on it. */
const START_DEADLINE_MS = 20_000;
/** Between two tries of the query (connection refused until the gateway listens). */
const RETRY_MS = 2;

export interface StartupFigures {
  /** The first start after the build: milliseconds to its answer. */
  firstStartMs: number;
  /** Each later start's milliseconds from spawn to the first answer with data. */
  startsMs: number[];
  medianMs: number;
  /** The same starts in the machine's environment as it is, when it sets any of MACHINE_ONLY. */
  inherited: InheritedStartFigures | null;
}

/**
 * Variables this machine sets for its own tools that a start of the gateway pays for although no
 * setting of the gateway asks for them. NODE_EXTRA_CA_CERTS (here, the bundle of the machine's
 * package proxy): node 20 builds its whole store of root certificates as the process starts,
 * before any JavaScript, whenever it is set, and the gateway in front of a plain-HTTP upstream
 * never makes a TLS connection. An operator whose upstream needs a private CA sets it and pays
 * that (docs/deployment.md says how to pay it at the first TLS connection instead).
 */
const MACHINE_ONLY = ['NODE_EXTRA_CA_CERTS'] as const;

export interface InheritedStartFigures {
  /** Which of MACHINE_ONLY the machine sets. */
  variables: string[];
  startsMs: number[];
  medianMs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const QUERY = JSON.stringify({ query: '{ protectionDevices(first: 1) { totalCount } }' });

/** One start's milliseconds to its first answer, in `environment` and the start script's settings. */
async function oneStart(v1Url: string, settings: BenchSettings, environment: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...startFlags(), fileURLToPath(GATEWAY_ENTRY)], {
    env: { ...environment, ...startEnv(), HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: v1Url, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const agent = new Agent({ pipelining: 0 });
  try {
    // The gateway picks its own port (PORT=0) and names it in its banner, printed once it listens;
    // the query is then tried until it is answered.
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = /https?:\/\/\S+:(\d+)\/graphql/.exec(text);
        if (match) resolve(`http://127.0.0.1:${match[1]}/graphql`);
      });
      child.once('exit', (code) => reject(new Error(`the gateway exited (code ${code}) before it listened`)));
      // A start that hangs before it listens fails the figure instead of the run waiting for ever.
      setTimeout(() => reject(new Error(`no banner within ${START_DEADLINE_MS} ms`)), START_DEADLINE_MS).unref();
    });
    while (performance.now() - started < START_DEADLINE_MS) {
      try {
        const answer = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-token': settings.key },
          body: QUERY,
          dispatcher: agent,
        });
        const body = (await answer.body.json()) as { data?: unknown };
        if (answer.statusCode === 200 && body.data) {
          return performance.now() - started;
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    throw new Error(`no answer within ${START_DEADLINE_MS} ms`);
  } finally {
    child.kill('SIGKILL');
    await agent.close();
  }
}

export async function benchStartup(v1Url: string, settings: BenchSettings): Promise<StartupFigures> {
  const variables: string[] = MACHINE_ONLY.filter((name) => process.env[name] !== undefined);
  const gatewayOnly = Object.fromEntries(Object.entries(process.env).filter(([name]) => !variables.includes(name)));
  const firstStartMs = await oneStart(v1Url, settings, gatewayOnly);
  const startsMs: number[] = [];
  const inheritedMs: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    startsMs.push(await oneStart(v1Url, settings, gatewayOnly));
    if (variables.length > 0) inheritedMs.push(await oneStart(v1Url, settings, process.env));
  }
  return {
    firstStartMs,
    startsMs,
    medianMs: median(startsMs),
    inherited: variables.length > 0 ? { variables, startsMs: inheritedMs, medianMs: median(inheritedMs) } : null,
  };
}
