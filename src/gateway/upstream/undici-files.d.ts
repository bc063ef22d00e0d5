// The types of the undici files that undici-parts.ts loads (a .d.ts of its own name would be shadowed by it): those of the package's index.
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool;
  export = Pool;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: typeof import('undici').Dispatcher;
  export = Dispatcher;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect', unknown>;
  export = api;
}
declare module 'undici/lib/core/errors.js' {
  const errors: typeof import('undici').errors;
  export = errors;
}
