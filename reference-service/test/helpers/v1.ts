// The suites' client of the service: the package's test harness (src/testing.ts), with every
// response checked against the OpenAPI document, and the check of a failure envelope.
import { expect } from 'vitest';
import { v1Request as send, type V1RequestOptions, type V1Response } from '../../src/testing.ts';
import { assertV1Response } from './openapi.ts';

export {
  startTestV1,
  TEST_API_KEYS,
  TEST_KEYS,
  TEST_ORGANIZATIONS,
  type TestV1,
  type V1RequestOptions,
  type V1Response,
} from '../../src/testing.ts';

export async function v1Request(service: { url: string }, method: string, path: string, options: V1RequestOptions = {}): Promise<V1Response> {
  const response = await send(service, method, path, options);
  assertV1Response({ method, url: path }, { status: response.status, headers: response.headers, body: response.body });
  return response;
}

/**
 * A v1 failure envelope: the status, `error` 1, only `error` and `messages`, the messages' codes
 * and fields in order, and each message with a non-empty text and no other key.
 */
export function expectV1Failure(response: V1Response, status: number, expected: { code: string; field?: string }[]): void {
  expect(response.status).toBe(status);
  expect(response.json.error).toBe(1);
  expect(Object.keys(response.json).sort()).toEqual(['error', 'messages']);
  expect(response.json.messages.map((m: { code: string; field?: string }) => ({ code: m.code, field: m.field }))).toEqual(
    expected.map(({ code, field }) => ({ code, field })),
  );
  for (const message of response.json.messages) {
    expect(typeof message.message).toBe('string');
    expect(message.message.length).toBeGreaterThan(0);
    expect(Object.keys(message).every((key) => ['code', 'message', 'field'].includes(key))).toBe(true);
  }
}
