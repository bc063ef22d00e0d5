// Tool calls as the operator sees them, beside the GraphQL operations they run (which count and
// log themselves under the tool's name, like any operation). Registered on the gateway's registry.
import { Counter, type Registry } from 'prom-client';

export class McpMetrics {
  readonly toolCalls: Counter<'tool' | 'outcome'>;

  constructor(registry: Registry) {
    this.toolCalls = new Counter({
      name: 'mcp_tool_calls_total',
      help: 'MCP tool calls at /mcp by tool and outcome (ok, or the first error code)',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    });
  }
}
