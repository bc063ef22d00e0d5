// How far V8 lets the gateway's heap grow past its live size, set from within the process rather
// than as a node flag. Any V8 flag on the command line (`--max-old-space-size`,
// `--heap-growing-percent`...) changes the hash V8 checks code caches against, and node's own
// modules (node:crypto, node:http...) are compiled at start from such a cache, built into node
// without flags: with one, each was compiled from its source instead, some 40 ms of every start
// where 13 would do. Set here, once the gateway has loaded them, the growth costs the start nothing.
//
// Why the growth is bounded at all: under sustained load the gateway's live heap stays near 30 MB,
// and V8's own policy lets a heap grow to about four times that between full collections; twice
// the live size costs no CPU (README, "The heap's growth is bounded, from within the process").

import { setFlagsFromString } from 'node:v8';

/** Percent of the live heap V8 may add before its next full collection. */
export const HEAP_GROWING_PERCENT = 100;

const FLAG = '--heap-growing-percent';

/**
 * The operator chose the growth (a node flag or NODE_OPTIONS; V8 reads `_` as `-`): theirs stands,
 * untouched. Known at start, once.
 */
const CHOSEN_BY_OPERATOR = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  .map((argument) => argument.replaceAll('_', '-'))
  .some((argument) => argument === FLAG || argument.startsWith(`${FLAG}=`));

export function boundHeapGrowth(): void {
  if (CHOSEN_BY_OPERATOR) return;
  setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}

/**
 * Runs `make` with V8's flags as they were at the start, so that a code cache it makes is one the
 * next start (which compiles before the growth is set) takes, then sets the growth again.
 */
export function withStartFlags<T>(make: () => T): T {
  if (CHOSEN_BY_OPERATOR) return make();
  setFlagsFromString(`${FLAG}=0`);
  try {
    return make();
  } finally {
    boundHeapGrowth();
  }
}
