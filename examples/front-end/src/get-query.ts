// A query as GET (a CDN or a browser cache may keep it): the document and the variables in the
// URL, and `apollo-require-preflight`, which Apollo's CSRF prevention asks of every GET that does
// not say it is JSON. Mutations and subscriptions never go as GET.
export async function getQuery<TResult>(query: string, variables: Record<string, unknown> = {}, url = 'http://localhost:4000/graphql', key = 'demo-admin-key'): Promise<TResult> {
  const target = new URL(url);
  target.searchParams.set('query', query);
  target.searchParams.set('variables', JSON.stringify(variables));
  const response = await fetch(target, { headers: { 'apollo-require-preflight': 'true', 'x-service-token': key } });
  const body = (await response.json()) as { data?: TResult; errors?: { message: string }[] };
  if (!body.data) throw new Error(body.errors?.[0]?.message ?? `HTTP ${response.status}`);
  return body.data;
}
