// One GraphQL request over HTTP through Apollo, to its answer written on the response; then the
// data the request made is cut apart (request-trees.ts), whatever became of it.
import type { ApolloServer, HTTPGraphQLRequest } from '@apollo/server';
import type { ServerResponse } from 'node:http';
import type { GatewayContext } from '../context.ts';
import { RequestTrees } from '../request-trees.ts';

export async function answerThroughApollo(
  apollo: ApolloServer<GatewayContext>,
  httpGraphQLRequest: HTTPGraphQLRequest,
  res: ServerResponse,
  createContext: (trees: RequestTrees) => GatewayContext,
): Promise<void> {
  const trees = new RequestTrees();
  try {
    const response = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: async () => createContext(trees) });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      // Encoded once, into a Buffer: from a string, node would measure its UTF-8 length for
      // Content-Length, then copy it behind the head of the response, then encode it to write.
      // The response is emptied of its text: the old promises it came by hold it.
      const answer = Buffer.from(response.body.string, 'utf8');
      response.body.string = '';
      res.end(answer);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  } finally {
    trees.release();
  }
}
