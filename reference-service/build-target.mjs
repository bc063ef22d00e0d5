// What the production build (scripts/build.mjs at the repository's top) makes of this package,
// paths relative to this folder: the public entry, which the gateway's command loads for its
// embedded default, and the service's own command (`npm run v1`), each bundled into one file.
// The SQL migrations stay files under src/ (the bundle finds them from the package folder), and
// better-sqlite3, a native addon, stays in node_modules.
export default {
  /** Whatever these bundles are made of: a change here rebuilds them. */
  inputs: ['src', 'package.json', 'build-target.mjs'],
  external: ['better-sqlite3'],
  bundles: [
    { entry: 'src/index.ts', outfile: 'dist/index.js' },
    { entry: 'src/main.ts', outfile: 'dist/main.js' },
  ],
};
