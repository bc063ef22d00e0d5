// A POSTed GraphQL request body, read and checked before Apollo sees it: the size cap (413, after
// the rest of the body is drained so the client can read it), UTF-8, JSON, Unicode as sent, and
// the size of a batch. Each refusal is a GraphQL error shape with its own code.
import type { IncomingMessage } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { batchTooLarge } from '../limits/apollo.ts';
import { BodyNotUtf8Error, BodyTooLargeError, ClientGoneError, discardRest, readBody } from './body.ts';
import { loneSurrogateIn } from './unicode.ts';

export type GraphQLBody =
  | { kind: 'read'; body: unknown }
  /** The client went away: nobody is left to answer. */
  | { kind: 'gone' }
  | { kind: 'refused'; status: number; answer: { errors: GraphQLFormattedError[] }; headers?: Record<string, string> };

function refused(status: number, message: string, code: string, headers?: Record<string, string>): GraphQLBody {
  return { kind: 'refused', status, answer: { errors: [{ message, extensions: { code } }] }, ...(headers ? { headers } : {}) };
}

export async function readGraphQLBody(
  req: IncomingMessage,
  settings: { bodyLimitBytes: number; limits: { maxBatchSize: number } },
): Promise<GraphQLBody> {
  let text: string;
  try {
    text = await readBody(req, settings.bodyLimitBytes);
  } catch (error) {
    if (error instanceof ClientGoneError) return { kind: 'gone' };
    if (error instanceof BodyTooLargeError) {
      await discardRest(req);
      return refused(413, `Request body is too large: the limit is ${settings.bodyLimitBytes} bytes (BODY_LIMIT_BYTES).`, 'PAYLOAD_TOO_LARGE', {
        connection: 'close',
      });
    }
    if (error instanceof BodyNotUtf8Error) return refused(400, 'Request body is not valid UTF-8.', 'BAD_REQUEST');
    throw error;
  }
  const type = req.headers['content-type'] ?? '';
  // Apollo refuses other content types itself (CSRF prevention, then "not a GraphQL request").
  if (!/^application\/(graphql-response\+)?json\b/i.test(type) || text === '') return { kind: 'read', body: text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refused(400, 'Request body is not valid JSON.', 'BAD_REQUEST');
  }
  const lone = loneSurrogateIn(text, body);
  if (lone !== undefined) {
    return refused(400, `${lone} holds a lone UTF-16 surrogate, which is not valid Unicode: send the text as it is meant to be stored.`, 'BAD_USER_INPUT');
  }
  if (Array.isArray(body) && settings.limits.maxBatchSize <= 0) {
    return refused(400, 'Batched requests are off: send one operation per request, or turn batching on with MAX_BATCH_SIZE.', 'BATCHING_DISABLED');
  }
  const oversizedBatch = batchTooLarge(body, settings.limits.maxBatchSize);
  if (oversizedBatch) return { kind: 'refused', status: 400, answer: oversizedBatch };
  return { kind: 'read', body };
}
