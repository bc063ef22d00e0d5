// graphql-codegen's client preset for a front end of the gateway: typed `graphql()` documents and
// their result and variables types. `npx graphql-codegen --config codegen.ts` (re)writes src/gql/.
import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

const config: CodegenConfig = {
  // The running gateway (introspection is on outside production) with a key, or the schema the
  // gateway's repository prints (src/gateway/generated/schema.graphql): set GATEWAY_SCHEMA to it.
  schema: process.env.GATEWAY_SCHEMA ?? [
    { [process.env.GATEWAY_URL ?? 'http://localhost:4000/graphql']: { headers: { 'x-service-token': process.env.GATEWAY_KEY ?? 'demo-admin-key' } } },
  ],
  documents: ['src/**/*.ts', '!src/gql/**/*'],
  ignoreNoDocuments: true,
  generates: {
    './src/gql/': {
      preset: 'client',
      // Also writes src/gql/persisted-documents.json (hash to document) and puts each document's
      // hash on it: deploy the file with the gateway (TRUSTED_DOCUMENTS) and send `documentId`.
      presetConfig: { persistedDocuments: true },
      // Apollo Client's cache asks every object's __typename: the documents (and their hashes)
      // carry it, so that a trusted document is exactly what Apollo Client would send.
      documentTransforms: [addTypenameSelectionDocumentTransform],
      config: {
        // The gateway's custom scalars as they travel in JSON; without this map each is `unknown`.
        scalars: {
          DateTime: 'string',
          EmailAddress: 'string',
          IPv4: 'string',
          URL: 'string',
          UUID: 'string',
          JSONObject: 'Record<string, unknown>',
        },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
