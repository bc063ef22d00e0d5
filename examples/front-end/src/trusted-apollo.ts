// Trusted documents with Apollo Client: the persisted-query link sends each operation's hash
// instead of its text. The hash must be the manifest's (the client preset puts it on each typed
// document as `__meta__.hash`), not a hash of Apollo's own print of the document, whose text
// differs from the manifest's.
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';

export function createTrustedApolloClient(url = 'http://localhost:4000/graphql', key = 'demo-admin-key') {
  const persisted = new PersistedQueryLink({
    generateHash: (document) => (document as { __meta__?: { hash?: string } }).__meta__?.hash ?? '',
  });
  return new ApolloClient({
    link: persisted.concat(new HttpLink({ uri: url, headers: { 'x-service-token': key } })),
    cache: new InMemoryCache(),
  });
}
