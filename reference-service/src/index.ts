// The package's public entry: what a program that runs the reference service needs (the gateway's
// command embeds it when no upstream is configured). Production loads the bundle built from this
// file (dist/index.js); tests and the type checker read this source through the `source`
// condition of the package's exports.
export { ConfigError, parseV1Config } from './config.ts';
export { startV1Service, type V1Service, type V1ServiceOptions } from './server.ts';
export type { ApiKey } from './storage/keys.ts';
export { shownDatabase } from './storage/open-store.ts';
export type { SeedSizes } from './seed/generate.ts';
