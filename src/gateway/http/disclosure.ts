// What the gateway tells a client about itself besides answers: the Sandbox landing page, the
// schema through introspection, "Did you mean …?" suggestions, stack traces. Production turns
// each off unless its setting turns it back on (config.ts); this file turns the settings into
// Apollo Server options.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { graphiqlLandingPagePlugin } from '../landing/graphiql.ts';

export interface DisclosureSettings {
  production: boolean;
  introspection: boolean;
  landingPage: boolean;
  /** Which explorer the landing page is: Apollo Sandbox (from Apollo's CDN) or GraphiQL (served by the gateway). */
  landingPageKind: 'sandbox' | 'graphiql';
  fieldSuggestions: boolean;
  stackTraces: boolean;
  /** Embedded demo only: the key Sandbox's shared headers start with. */
  demoKey?: string | undefined;
}

const FIRST_QUERY = `query FirstLook {
  protectionDevices(first: 5) {
    totalCount
    nodes { id deviceId type endpoint services organization { name } }
  }
}
`;

/**
 * The landing page is embedded Sandbox in every mode where it is on. Apollo's production landing
 * page embeds something usable (Explorer) only with a graph ref of Apollo GraphOS, which this
 * gateway does not have; without one it is a splash page. So LANDING_PAGE=true in production
 * gets the same Sandbox as development.
 */
function landingPagePlugin<TContext extends BaseContext>(settings: DisclosureSettings): ApolloServerPlugin<TContext> {
  if (!settings.landingPage) return ApolloServerPluginLandingPageDisabled();
  if (settings.landingPageKind === 'graphiql') return graphiqlLandingPagePlugin<TContext>({ path: '/graphql', demoKey: settings.demoKey, query: FIRST_QUERY });
  const embed = settings.demoKey ? { initialState: { sharedHeaders: { 'X-Service-Token': settings.demoKey } } } : true;
  return ApolloServerPluginLandingPageLocalDefault({ footer: false, embed, document: FIRST_QUERY });
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
