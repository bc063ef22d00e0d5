// `npm run v1`, as the README gives it: the reference service alone, from the bundle the build
// makes of it (reference-service/dist/main.js), which finds its migrations from its package folder.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/start-command.ts';

describe('npm run v1', () => {
  it('serves the v1 contract on the port it prints, and stops on SIGTERM', async () => {
    const child = spawn('npm', ['run', 'v1', '--silent'], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? REPO, V1_PORT: '0', V1_DATABASE: ':memory:', V1_SEED: 'none', V1_API_KEYS: 'k=*' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // npm's child is the service: a signal to the group npm leads reaches it.
      detached: true,
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const found = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
          if (found) resolve(found);
        });
        void exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
      });
      // The empty database has no organization 1: a 404 in v1's envelope proves key, routing and schema.
      const answer = await fetch(`${url}/api/v1/organizations/1/security-frameworks`, { headers: { 'X-Service-Token': 'k' } });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ error: expect.any(Number), messages: expect.any(Array) });
      const devices = await fetch(`${url}/api/v1/atb?limit=1`, { headers: { 'X-Service-Token': 'k' } });
      expect(await devices.json()).toEqual({ error: 0, messages: [], total: 0, data: [] });
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    expect(stderr).not.toMatch(/error/i);
  }, 60_000);
});
