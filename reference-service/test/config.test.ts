import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseApiKeys, parseV1Config } from '../src/config.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function configError(env: Record<string, string>): ConfigError {
  try {
    parseV1Config(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('parseV1Config', () => {
  it('leaves every option to its default when nothing is set (empty counts as unset)', () => {
    expect(parseV1Config({})).toEqual({});
    expect(parseV1Config({ V1_PORT: '', V1_HOST: ' ', V1_SEED: '' })).toEqual({});
  });

  it('reads every setting', () => {
    expect(
      parseV1Config({
        V1_HOST: '0.0.0.0',
        V1_PORT: '9090',
        V1_DATABASE: '/tmp/x.sqlite',
        V1_API_KEYS: 'alpha=1, beta=*',
        V1_SEED: 'none',
        V1_SIMULATE_TRAFFIC: '25',
        V1_SEED_DEVICES: '100',
        V1_SEED_TRAFFIC: '1000000',
        V1_SEED_HOT_TRAFFIC: '500000',
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 9090,
      database: '/tmp/x.sqlite',
      apiKeys: 'alpha=1, beta=*',
      seed: 'none',
      simulateTraffic: 25,
      seedSizes: { devices: 100, traffic: 1_000_000, hotTraffic: 500_000 },
    });
    expect(parseV1Config({ V1_PORT: '0', V1_SEED_TRAFFIC: '10' })).toEqual({ port: 0, seedSizes: { traffic: 10 } });
  });

  const bad: [Record<string, string>, string][] = [
    [{ V1_PORT: 'abc' }, 'V1_PORT'],
    [{ V1_PORT: '65536' }, 'V1_PORT'],
    [{ V1_PORT: '-1' }, 'V1_PORT'],
    [{ V1_PORT: '80.5' }, 'V1_PORT'],
    [{ V1_SEED: 'full' }, 'V1_SEED'],
    [{ V1_SIMULATE_TRAFFIC: 'fast' }, 'V1_SIMULATE_TRAFFIC'],
    [{ V1_SIMULATE_TRAFFIC: '-5' }, 'V1_SIMULATE_TRAFFIC'],
    [{ V1_SEED_DEVICES: '0' }, 'V1_SEED_DEVICES'],
    [{ V1_SEED_TRAFFIC: 'many' }, 'V1_SEED_TRAFFIC'],
    [{ V1_SEED_HOT_TRAFFIC: '1e6' }, 'V1_SEED_HOT_TRAFFIC'],
    [{ V1_API_KEYS: 'secret-one' }, 'V1_API_KEYS'],
    [{ V1_API_KEYS: 'secret-one=org' }, 'V1_API_KEYS'],
    [{ V1_API_KEYS: 'secret-one=0' }, 'V1_API_KEYS'],
    [{ V1_API_KEYS: '=1' }, 'V1_API_KEYS'],
    [{ V1_API_KEYS: 'secret-one=1,secret-one=2' }, 'V1_API_KEYS'],
    [{ V1_API_KEYS: 'secret one=1' }, 'V1_API_KEYS'],
  ];
  for (const [env, name] of bad) {
    it(`rejects ${JSON.stringify(env)} with one line naming ${name}, never showing a key`, () => {
      const { message } = configError(env);
      expect(message.startsWith(`${name}: `)).toBe(true);
      expect(message).not.toContain('\n');
      expect(message).not.toContain('secret');
    });
  }

  it('parses V1_API_KEYS pairs into scoped keys', () => {
    expect(parseApiKeys('a=1,b=*, c = 22 ')).toEqual([
      { key: 'a', organizationId: 1, label: 'V1_API_KEYS pair 1' },
      { key: 'b', organizationId: null, label: 'V1_API_KEYS pair 2' },
      { key: 'c', organizationId: 22, label: 'V1_API_KEYS pair 3' },
    ]);
    expect(parseApiKeys(undefined)).toEqual([]);
  });
});

function run(env: Record<string, string>, onLine?: (line: string, kill: () => void) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, 'src/main.ts'], { cwd: PACKAGE, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      for (const line of chunk.split('\n')) if (line) onLine?.(line, () => child.kill('SIGTERM'));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// `npm run v1` runs the bundle built from this file; the suites run the source.
describe('the command (src/main.ts)', () => {
  it('prints one line naming a bad setting and exits 1', async () => {
    const { code, stdout, stderr } = await run({ V1_PORT: 'eighty', V1_DATABASE: ':memory:' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe('V1_PORT: "eighty" is not an integer from 0 to 65535\n');
  });

  it('prints its URL, serves, and exits 0 on SIGTERM', async () => {
    let status: number | undefined;
    const { code, stdout } = await run(
      { V1_PORT: '0', V1_DATABASE: ':memory:', V1_SEED: 'none', V1_API_KEYS: 'k=*' },
      (line, kill) => {
        const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (!url) return;
        // Organization 1 does not exist in the empty database: 404 proves the key and routing work.
        fetch(`${url}/api/v1/organizations/1/security-frameworks`, { headers: { 'X-Service-Token': 'k' } })
          .then((r) => (status = r.status))
          .finally(kill);
      },
    );
    expect(stdout).toMatch(/^v1 service listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(status).toBe(404);
    expect(code).toBe(0);
  });
});
