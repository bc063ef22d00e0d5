// The assistants' endpoint as the configuration asks for it: MCP, MCP_OPERATIONS, MCP_ALLOW_MUTATIONS.
export interface McpSettings {
  /** MCP_OPERATIONS: a .graphql file or a folder of them; undefined: the set shipped with the gateway. */
  operations: string | undefined;
  /** MCP_ALLOW_MUTATIONS: mutations of the operation files become tools too (off: they are left out). */
  allowMutations: boolean;
}

/** Where the endpoint answers. */
export const MCP_PATH = '/mcp';
