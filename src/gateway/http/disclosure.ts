// What the gateway tells a client about itself besides answers: the Sandbox landing page, the
// schema through introspection, "Did you mean …?" suggestions, stack traces. Production turns
// each off unless its setting turns it back on (config.ts); this file turns the settings into
// Apollo Server options.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { FIRST_QUERY } from '../landing/first-query.ts';
import { graphiqlLandingPagePlugin } from '../landing/graphiql.ts';
import { sandboxLandingPagePlugin } from '../landing/sandbox.ts';

export interface DisclosureSettings {
  production: boolean;
  introspection: boolean;
  landingPage: boolean;
  /** Which explorer the landing page is: GraphiQL served by the gateway, with a link to Sandbox or alone, or Apollo Sandbox (from Apollo's CDN). */
  landingPageKind: 'default' | 'sandbox' | 'graphiql';
  fieldSuggestions: boolean;
  stackTraces: boolean;
  /** Embedded demo only: the key Sandbox's shared headers start with. */
  demoKey?: string | undefined;
}

/**
 * The landing page, where it is on. The default is GraphiQL served by the gateway, which works
 * offline, with a link to Apollo Sandbox (from Apollo's CDN) for when the browser is online.
 * Sandbox as the page itself is embedded Sandbox in every mode: Apollo's production landing page
 * embeds something usable (Explorer) only with a graph ref of Apollo GraphOS, which this gateway
 * does not have; without one it is a splash page.
 */
function landingPagePlugin<TContext extends BaseContext>(settings: DisclosureSettings): ApolloServerPlugin<TContext> {
  if (!settings.landingPage) return ApolloServerPluginLandingPageDisabled();
  if (settings.landingPageKind === 'sandbox') return sandboxLandingPagePlugin<TContext>(settings.demoKey);
  return graphiqlLandingPagePlugin<TContext>({ path: '/graphql', demoKey: settings.demoKey, query: FIRST_QUERY, sandboxLink: settings.landingPageKind === 'default' });
}

/** The Apollo Server options these settings decide; spread into `new ApolloServer(...)`. */
export function disclosureOptions<TContext extends BaseContext>(settings: DisclosureSettings) {
  return {
    // Apollo would otherwise read NODE_ENV from the process, not from the gateway's configuration.
    nodeEnv: settings.production ? 'production' : 'development',
    introspection: settings.introspection,
    includeStacktraceInErrorResponses: settings.stackTraces,
    hideSchemaDetailsFromClientErrors: !settings.fieldSuggestions,
    landingPagePlugin: landingPagePlugin<TContext>(settings),
  };
}
