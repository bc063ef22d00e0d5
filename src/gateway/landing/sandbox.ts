// Apollo Sandbox, embedded from Apollo's CDN (it needs the internet): Apollo's own landing page
// plugin, with the demo key in its shared headers. Served on GET /graphql as the landing page
// (LANDING_PAGE=sandbox), or on GET /graphql?explorer=sandbox beside the offline explorer (the
// default): Sandbox takes the page's own address as its endpoint, so it must stay on /graphql.
import type { ApolloServerPlugin, BaseContext, GraphQLServerContext } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { FIRST_QUERY } from './first-query.ts';

/** The query string that asks /graphql for Sandbox rather than the default explorer. */
export const SANDBOX_SEARCH = 'explorer=sandbox';

export function sandboxLandingPagePlugin<TContext extends BaseContext>(demoKey: string | undefined): ApolloServerPlugin<TContext> {
  const embed = demoKey ? { initialState: { sharedHeaders: { 'X-Service-Token': demoKey } } } : true;
  return ApolloServerPluginLandingPageLocalDefault({ footer: false, embed, document: FIRST_QUERY });
}

/** Sandbox's page as Apollo's plugin renders it (the plugin reads nothing of the server). */
export async function sandboxPageHtml(demoKey: string | undefined): Promise<string> {
  const listener = await sandboxLandingPagePlugin(demoKey).serverWillStart?.({} as GraphQLServerContext);
  const page = await listener?.renderLandingPage?.();
  if (!page) throw new Error("Apollo's landing page plugin rendered no page");
  return typeof page.html === 'string' ? page.html : page.html();
}
