// A GraphQL answer as a tool's result: `structuredContent` is the operation's `data` and the first
// text block the same JSON, so that a client that reads only text sees what one that reads
// structure sees. Errors make `isError: true`, with each error's message, code and path in a text
// block of their own, beside whatever data the operation still produced (partial data).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: readonly { message: string; path?: readonly (string | number)[]; extensions?: Record<string, unknown> }[];
  extensions?: Record<string, unknown>;
}

export function toolResult(answer: GraphQLAnswer): CallToolResult {
  const data = answer.data ?? undefined;
  const content: CallToolResult['content'] = [];
  if (data !== undefined) content.push({ type: 'text', text: JSON.stringify(data) });
  const errors = answer.errors ?? [];
  if (errors.length > 0) {
    const described = errors.map((error) => ({
      message: error.message,
      ...(error.path ? { path: error.path } : {}),
      // The code first: it is what an assistant acts on (wait on RATE_LIMITED, fix the argument on BAD_USER_INPUT).
      extensions: { code: error.extensions?.code ?? 'INTERNAL_SERVER_ERROR', ...error.extensions },
    }));
    content.unshift({ type: 'text', text: JSON.stringify({ errors: described }) });
  }
  return {
    content,
    ...(data !== undefined ? { structuredContent: data } : {}),
    ...(errors.length > 0 ? { isError: true } : {}),
    // What the operation cost and what is left of the caller's bucket (`extensions.cost`).
    ...(answer.extensions ? { _meta: { extensions: answer.extensions } } : {}),
  };
}
