// undici's connection pool and its errors, loaded from their own files rather than the package's
// index: the index loads all of undici (fetch, WebSocket, cookies, caches, mocks, some 1 MB of
// code) to start, and the gateway uses only the pool. Loading is a good part of its start-up.
// The version is pinned (package.json); test/gateway/upstream tests every use of these parts.
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import api from 'undici/lib/api/index.js';
import errors from 'undici/lib/core/errors.js';

// What the index does for every dispatcher: `request`, `stream`… are its API methods. The same
// functions again when the index is loaded too (the tests use it).
Object.assign(Dispatcher.prototype, api);

export { errors, Pool };
