import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

let service: TestV1;

beforeAll(async () => {
  service = await startTestV1();
});
afterAll(async () => {
  await service?.close();
});

/** A full framework state that differs from every other in title, control ids, count and values. */
function state(n: number) {
  return {
    title: `State ${n}`,
    security_frameworks: Array.from({ length: 1 + (n % 5) }, (_, i) => ({
      id: `S${n}-C${i}`,
      type: 'control',
      title: `Control ${i} of state ${n}`,
      weight: n + i / 10,
      details: { state: n, position: i },
      evidences: [],
      frequency: `${n % 60} ${i} * * *`,
      description: `state ${n}`,
      evidence_type: 'document',
    })),
  };
}

describe('concurrent edits of one framework', () => {
  it('end in exactly one of the sent states, never a mix', async () => {
    const created = await v1Request(service, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=1', { body: state(0) });
    const id = created.json.security_framework as number;
    const path = `/api/v1/organizations/1/security-frameworks/${id}`;

    for (let round = 0; round < 3; round++) {
      const states = Array.from({ length: 20 }, (_, i) => state(round * 20 + i + 1));
      const responses = await Promise.all(states.map((body) => v1Request(service, 'PUT', path, { body })));
      // Each edit answers exactly the state it wrote.
      responses.forEach((response, i) => {
        expect(response.status).toBe(200);
        expect(response.json.security_framework).toEqual({ id, ...states[i] });
      });
      const listed = await v1Request(service, 'GET', '/api/v1/organizations/1/security-frameworks');
      const final = listed.json.data.find((f: { id: number }) => f.id === id);
      const matches = states.filter((s) => JSON.stringify({ id, ...s }) === JSON.stringify(final));
      expect(matches).toHaveLength(1);
    }
  });

  it('concurrent creates get distinct ids, each with its own content', async () => {
    const states = Array.from({ length: 20 }, (_, i) => state(100 + i));
    const responses = await Promise.all(
      states.map((body) => v1Request(service, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=2', { body })),
    );
    const ids = responses.map((r) => r.json.security_framework as number);
    expect(new Set(ids).size).toBe(20);
    const listed = await v1Request(service, 'GET', '/api/v1/organizations/2/security-frameworks');
    for (const [i, id] of ids.entries()) {
      expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual({ id, ...states[i] });
    }
  });
});
