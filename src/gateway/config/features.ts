// Settings of the features whose values are checked together: the query limits, trusted
// documents (a mode needs its manifest), MCP (its options need the endpoint on).
import { ConfigError } from '../config-error.ts';
import { DEFAULT_LIMITS, LIMIT_SETTINGS, type QueryLimits } from '../limits/settings.ts';
import type { McpSettings } from '../mcp/settings.ts';
import type { TrustedDocumentsSettings } from '../trusted-documents/index.ts';
import { booleanSetting, integerSetting, read, type Env } from './read.ts';

export function limitSettings(env: Env): QueryLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(LIMIT_SETTINGS) as (keyof QueryLimits)[]) {
    const { env: setting, min, max } = LIMIT_SETTINGS[name];
    limits[name] = integerSetting(env, setting, DEFAULT_LIMITS[name], min, max);
  }
  return limits;
}

export function mcpSetting(env: Env): McpSettings | undefined {
  const operations = read(env, 'MCP_OPERATIONS');
  const allowMutations = booleanSetting(env, 'MCP_ALLOW_MUTATIONS', false);
  if (!booleanSetting(env, 'MCP', false)) {
    // Set without MCP, they would do nothing: the operator meant to turn the endpoint on.
    if (operations !== undefined) throw new ConfigError('MCP_OPERATIONS: the assistants\' endpoint is off; set MCP=1 to serve these operations at /mcp');
    if (allowMutations) throw new ConfigError('MCP_ALLOW_MUTATIONS: the assistants\' endpoint is off; set MCP=1 to serve it at /mcp');
    return undefined;
  }
  return { operations, allowMutations };
}

const TRUSTED_MODES = ['off', 'log', 'enforce'] as const;

export function trustedDocumentsSetting(env: Env): TrustedDocumentsSettings {
  const manifest = read(env, 'TRUSTED_DOCUMENTS');
  const raw = read(env, 'TRUSTED_DOCUMENTS_MODE')?.toLowerCase();
  const mode = raw ?? 'off';
  if (!(TRUSTED_MODES as readonly string[]).includes(mode)) throw new ConfigError(`TRUSTED_DOCUMENTS_MODE: expected off, log or enforce, got "${raw}"`);
  if (mode !== 'off' && manifest === undefined) throw new ConfigError(`TRUSTED_DOCUMENTS_MODE: ${mode} needs TRUSTED_DOCUMENTS, the manifest of trusted documents`);
  return { manifest, mode: mode as TrustedDocumentsSettings['mode'] };
}
