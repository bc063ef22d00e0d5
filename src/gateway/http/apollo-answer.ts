// One GraphQL request over HTTP through Apollo, to its answer written on node's response.
import type { ApolloServer, HTTPGraphQLRequest } from '@apollo/server';
import type { ServerResponse } from 'node:http';
import type { GatewayContext } from '../context.ts';

export async function answerThroughApollo(
  apollo: ApolloServer<GatewayContext>,
  httpGraphQLRequest: HTTPGraphQLRequest,
  res: ServerResponse,
  createContext: () => GatewayContext,
): Promise<void> {
  const response = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: async () => createContext() });
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    // Encoded once, into a Buffer: from a string, node would measure its UTF-8 length for
    // Content-Length, then copy it behind the head of the response, then encode it to write.
    res.end(Buffer.from(response.body.string, 'utf8'));
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
