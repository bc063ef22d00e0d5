// SUBGRAPH and SUBGRAPH_SECRET as config.ts reads them.
export interface SubgraphSettings {
  /** SUBGRAPH=1: serve the schema as a Federation 2 subgraph. */
  enabled: boolean;
  /** What the router sends in X-Subgraph-Secret; undefined: `_service` and `_entities` are open to any caller. */
  secret: string | undefined;
}
