// Every refusal in the contract's JSON shape, even those node makes before a handler runs (a
// request line and headers too large), and no upstream address in any metric label.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../helpers/gateway.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

function rawGet(url: string, path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('refusals', () => {
  it('answers a 22 KB URL 431 with a JSON error', async () => {
    const answer = await rawGet(stack.gateway.url, `/graphql?query=${'x'.repeat(22 * 1024)}`);
    expect(answer.status).toBe(431);
    expect(answer.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: expect.stringMatching(/POST/), extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('answers an unknown route 404 in the contract error shape', async () => {
    const answer = await rawGet(stack.gateway.url, '/nowhere');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'NOT_FOUND' } }] });
  });

  it('names no upstream address in /metrics', async () => {
    const text = await (await fetch(new URL('/metrics', stack.gateway.url))).text();
    const upstream = new URL(stack.proxy.url);
    expect(text).not.toContain(upstream.host);
    expect(text).toContain('upstream_circuit_state{upstream="graphql"} 0');
    expect(text).toContain('upstream_circuit_state{upstream="exports"} 0');
  });
});
