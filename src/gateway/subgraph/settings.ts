// SUBGRAPH and SUBGRAPH_SECRET as config.ts reads them.
export interface SubgraphSettings {
  /** SUBGRAPH=1: serve the schema as a Federation 2 subgraph. */
  enabled: boolean;
  /** What the router sends in X-Subgraph-Secret; undefined: `_service` and `_entities` are open to any caller. */
  secret: string | undefined;
}

/** The settings, or `refuse`'s error naming SUBGRAPH_SECRET set without SUBGRAPH=1 (never the secret itself). */
export function subgraphSettings(enabled: boolean, secret: string | undefined, refuse: (message: string) => Error): SubgraphSettings {
  if (secret !== undefined && !enabled) throw refuse('SUBGRAPH_SECRET: set only with SUBGRAPH=1 (it guards the subgraph fields, which are off)');
  return { enabled, secret };
}
