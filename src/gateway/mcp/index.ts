// The assistants' endpoint as the gateway starts it: the tools read and checked once (the start
// stops on a bad operation file), then the /mcp handler over them. Off (undefined) without MCP=1.
import { readFileSync } from 'node:fs';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { projectPath } from '../project-path.ts';
import { loadManifest } from '../trusted-documents/manifest.ts';
import type { TrustedDocumentsSettings } from '../trusted-documents/index.ts';
import { mcpEndpoint, type McpEndpointOptions } from './endpoint.ts';
import { McpMetrics } from './metrics.ts';
import { loadTools, readOperationFiles, type OperationSource } from './operations.ts';
import type { McpSettings } from './settings.ts';

export { MCP_PATH, type McpSettings } from './settings.ts';
export { graphqlPipeline } from './pipeline.ts';

/** The operations shipped with the gateway, found from the project's root (src/, dist/ and the bundle alike). */
export const DEFAULT_OPERATIONS = 'src/gateway/mcp/default-operations.graphql';

export interface McpParts extends Pick<McpEndpointOptions, 'execute' | 'hasCredentials' | 'challenge' | 'bodyLimitBytes'> {
  schema: GraphQLSchema;
  trustedDocuments: TrustedDocumentsSettings;
  registry: Registry;
  logger: Logger;
}

function defaultOperations(): OperationSource[] {
  const path = projectPath(DEFAULT_OPERATIONS);
  return [{ label: DEFAULT_OPERATIONS, text: readFileSync(path, 'utf8') }];
}

export function mcpFor(settings: McpSettings | undefined, parts: McpParts): ReturnType<typeof mcpEndpoint> | undefined {
  if (settings === undefined) return undefined;
  const chosen = settings.operations !== undefined;
  const sources = chosen ? readOperationFiles(settings.operations!) : defaultOperations();
  const { mode, manifest } = parts.trustedDocuments;
  const { tools, mutationsLeftOut, untrustedLeftOut } = loadTools(sources, {
    schema: parts.schema,
    allowMutations: settings.allowMutations,
    // Enforced, only trusted documents run: a tool is one, or is not served.
    ...(mode === 'enforce' && manifest !== undefined ? { trusted: loadManifest(manifest).values(), untrusted: chosen ? 'stop' : 'leave out' } : {}),
  });
  if (mutationsLeftOut.length > 0) parts.logger.info({ operations: mutationsLeftOut }, 'MCP: mutations left out of the tools (MCP_ALLOW_MUTATIONS is off)');
  if (untrustedLeftOut.length > 0) parts.logger.warn({ operations: untrustedLeftOut }, 'MCP: default tools left out: not trusted documents (TRUSTED_DOCUMENTS_MODE=enforce)');
  parts.logger.info({ tools: tools.map((tool) => tool.name), operations: chosen ? settings.operations : 'default' }, 'MCP: tools served at /mcp');
  const { version } = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };
  return mcpEndpoint({
    tools,
    execute: parts.execute,
    hasCredentials: parts.hasCredentials,
    challenge: parts.challenge,
    bodyLimitBytes: parts.bodyLimitBytes,
    version,
    metrics: new McpMetrics(parts.registry),
    logger: parts.logger,
  });
}
