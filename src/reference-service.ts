// The embedded reference service's code, loaded only when the gateway starts without UPSTREAM_URL
// (its database driver included). In the bundle (scripts/bundle.mjs, `referenceServiceApart`)
// these load tsc's dist/v1/ files with require, which loads ES modules since node 20.19: the bundle
// is a CommonJS file compiled from a code cache (src/launcher/), where import() is not available.
export const loadV1Config = () => import('./v1/config.ts');
export const loadV1Server = () => import('./v1/server.ts');
