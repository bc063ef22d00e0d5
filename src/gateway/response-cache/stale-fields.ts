// Which fields reached a stale answer, found once for every resolver: a wrapper put around each
// resolver when the schema is built gives it a view of the request's context whose loaders note
// what they hand out with the field's path (StaleReads.note). A resolver needs to do nothing, and
// a new one is covered as it is written.
//
// Only resolvers that take the context are wrapped: one declared without it (`(device) =>
// device.id`) cannot reach the loaders, and those are the thousands of per-record fields of a
// page. A value a resolver hands its children to load later (a payload's read-back) carries the
// loaders of the field that made it, and is noted at that field.
//
// The gateway builds its schema with this wrapper only when stale answers can be served
// (STALE_IF_ERROR_S); otherwise no field pays anything for it.
import type { GraphQLFieldResolver } from 'graphql';
import type { StaleReads } from './stale.ts';

/** What the wrapper needs of a request's context: its stale record (with a key) and its loaders. */
export interface StaleAwareContext {
  stale?: StaleReads;
  loaders: object;
}

interface LoaderLike {
  load(key: unknown): Promise<unknown>;
  loadMany?(keys: readonly unknown[]): Promise<unknown[]>;
}

function isLoader(value: unknown): value is LoaderLike {
  return typeof value === 'object' && value !== null && typeof (value as LoaderLike).load === 'function';
}

/** `loader`, with what `load` and `loadMany` hand out given to `note`; its other members as they are. */
function notingLoader(loader: LoaderLike, note: (value: unknown) => void): LoaderLike {
  const load = (key: unknown) =>
    loader.load(key).then((value) => {
      note(value);
      return value;
    });
  const loadMany = (keys: readonly unknown[]) =>
    loader.loadMany!(keys).then((values) => {
      for (const value of values) note(value);
      return values;
    });
  return new Proxy(loader, {
    get(target, name) {
      if (name === 'load') return load;
      if (name === 'loadMany' && typeof target.loadMany === 'function') return loadMany;
      const member: unknown = Reflect.get(target, name);
      // Bound to the loader itself: its methods keep their state on it, not on the view.
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}

/** The request's loaders as one field sees them: each hands out through `note`. */
function notingLoaders<L extends object>(loaders: L, note: (value: unknown) => void): L {
  const views = new Map<PropertyKey, LoaderLike>();
  return new Proxy(loaders, {
    get(target, name) {
      const member: unknown = Reflect.get(target, name);
      if (!isLoader(member)) return member;
      let view = views.get(name);
      if (view === undefined) {
        view = notingLoader(member, note);
        views.set(name, view);
      }
      return view;
    },
  });
}

/**
 * `resolve`, noting the fields it gives a stale value through the loaders. Resolvers that do not
 * take the context are returned as they are.
 */
export function noteStaleFields<TSource, TContext extends StaleAwareContext, TArgs>(
  resolve: GraphQLFieldResolver<TSource, TContext, TArgs>,
): GraphQLFieldResolver<TSource, TContext, TArgs> {
  if (resolve.length < 3) return resolve;
  return (source, args, context, info) => {
    const { stale } = context;
    // A request without a key has no cache, hence no stale answer.
    if (stale === undefined) return resolve(source, args, context, info);
    const view: TContext = Object.create(context);
    view.loaders = notingLoaders(context.loaders, (value) => stale.note(info, value));
    return resolve(source, args, view, info);
  };
}
