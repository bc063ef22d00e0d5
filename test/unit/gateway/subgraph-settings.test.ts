// SUBGRAPH and SUBGRAPH_SECRET (graphql.md, "The supergraph"): off by default, a secret only with
// the subgraph on, and the secret never repeated in a refusal.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseGatewayConfig } from '../../../src/gateway/config.ts';

describe('subgraph settings', () => {
  it('are off by default', () => {
    expect(parseGatewayConfig({}).subgraph).toEqual({ enabled: false, secret: undefined });
  });

  it('SUBGRAPH=1 turns the subgraph on, with or without a secret', () => {
    expect(parseGatewayConfig({ SUBGRAPH: '1' }).subgraph).toEqual({ enabled: true, secret: undefined });
    expect(parseGatewayConfig({ SUBGRAPH: 'true', SUBGRAPH_SECRET: 's3cret-value' }).subgraph).toEqual({ enabled: true, secret: 's3cret-value' });
  });

  it('refuses a bad SUBGRAPH, and a SUBGRAPH_SECRET without SUBGRAPH=1, without repeating the secret', () => {
    expect(() => parseGatewayConfig({ SUBGRAPH: 'federation' })).toThrow('SUBGRAPH: expected true or false, got "federation"');
    let refused: unknown;
    try {
      parseGatewayConfig({ SUBGRAPH_SECRET: 's3cret-value' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/^SUBGRAPH_SECRET: /);
    expect((refused as Error).message).not.toContain('s3cret-value');
  });
});
