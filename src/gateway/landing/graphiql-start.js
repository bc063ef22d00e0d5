// Starts GraphiQL on the gateway's own landing page (served as /graphiql/start.js, no inline
// script). Its settings come from the page's JSON block: the GraphQL path, the headers to start
// with (the demo key, in the embedded demo) and the first query. Subscriptions go over
// graphql-ws at the same path; the header editor's headers travel in `connection_init`. As the
// default page, its logo corner links to Apollo Sandbox, which needs the internet.
(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  var url = new URL(config.path, window.location.href);
  var subscriptionUrl = url.href.replace(/^http/, 'ws');
  var fetcher = GraphiQL.createFetcher({ url: url.href, subscriptionUrl: subscriptionUrl });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: config.query,
      defaultHeaders: config.headers ? JSON.stringify(config.headers, null, 2) : undefined,
      // The key stays in this page, not in the browser's storage.
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: config.headers ? 'headers' : false,
    },
    config.sandbox
      ? React.createElement(
          GraphiQL.Logo,
          null,
          'GraphiQL ',
          React.createElement('a', { className: 'sandbox-link', href: config.sandbox, title: 'Apollo Sandbox loads from Apollo\'s CDN: it needs the internet' }, 'Open in Apollo Sandbox'),
        )
      : undefined),
  );
})();
