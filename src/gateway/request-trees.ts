// A request's data, cut apart once its answer is written, so that it dies young.
//
// At 32 connections a request outlives the young generation: its first objects (Apollo's request
// context, the pipeline's async functions and promises, the loaders, the upstream client) are made
// before its upstream calls and are promoted to the old generation while those calls are out.
// What arrives later is reached from them: each promise holds what it was resolved with, each
// async function the value of its last `await`. The scavenger takes every old-to-young pointer as
// a root, from dead objects as from live ones, until the next full collection; so a finished
// request's upstream answers and result tree are copied, then promoted, and full collections come
// several times a second. Those old objects cannot be reached from here, but what they point at
// can be emptied: once the answer is written, every tree the request kept is cut apart (its lists
// emptied, their items stripped of the objects they hold), and the rest of its data is garbage at
// the next scavenge.
//
// The body texts are kept out of those chains instead (upstream/exchange.ts reads a body into a
// holder that is emptied when it is parsed): a text is one string, and strings cannot be emptied.
// The answer's text is emptied out of Apollo's response once encoded (http/apollo-answer.ts), but
// Apollo's pipeline awaits it too, and holds it until the next full collection.

/** A string passed on in a holder, so that the one who uses it can take it out. */
export interface TextHolder {
  text: string;
}

/** The holder's text; the holder is left empty. */
export function takeText(holder: TextHolder): string {
  const { text } = holder;
  holder.text = '';
  return text;
}

// How deep a tree is cut: an answer, its lists, their items. What the items hold is detached from
// them, not walked: reached from nothing else, it dies with them, and walking a page's 7,000
// fields would cost a good part of what the cut saves.
const CUT_DEPTH = 2;

/**
 * Cuts `tree` apart down to CUT_DEPTH: every array is emptied and every object loses the objects
 * it holds (its scalars stay: they are small, and a field that held a number keeps its shape).
 */
export function cutApart(tree: unknown, depth = 0): void {
  if (typeof tree !== 'object' || tree === null) return;
  const deeper = depth < CUT_DEPTH;
  if (Array.isArray(tree)) {
    if (deeper) for (const item of tree) cutApart(item, depth + 1);
    tree.length = 0;
    return;
  }
  const node = tree as Record<string, unknown>;
  for (const key in node) {
    const value = node[key];
    if (typeof value !== 'object' || value === null) continue;
    if (deeper) cutApart(value, depth + 1);
    node[key] = null;
  }
}

/**
 * Apollo's `stringifyResult`: the answer's JSON, after which the result is cut from its `data`
 * (the executor's and Apollo's async functions that awaited the result hold it, and are old by now).
 */
export function stringifyAndCut(result: { data?: Record<string, unknown> | null }): string {
  const text = JSON.stringify(result);
  const { data } = result;
  if (data) for (const field in data) data[field] = null;
  return text;
}

/**
 * The trees one request made that nothing reads once its answer is written: the upstream answers
 * its client parsed. `release()` cuts them apart; the request's owner calls it once the answer's
 * last byte was handed to the socket.
 */
export class RequestTrees {
  #trees: unknown[] = [];

  keep(tree: unknown): void {
    this.#trees.push(tree);
  }

  release(): void {
    const trees = this.#trees;
    this.#trees = [];
    for (const tree of trees) {
      try {
        cutApart(tree);
      } catch {
        // Parsed JSON is never frozen; anything that is stays whole, for the collector.
      }
    }
  }
}
