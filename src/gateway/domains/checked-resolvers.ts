// The compiler's check of the resolver map. graphql-codegen makes every field resolver optional,
// which is right for a field the executor can read from its parent as it is, and wrong for one
// whose value the parent does not hold under that name and type (`privateIp` from the wire's
// `privateIP`): deleting that resolver would still compile, and the field would silently be null.
// `CheckedResolvers` makes exactly those resolvers required: a GraphQL field needs one when its
// parent (the codegen mapper: a wire record, a payload) has no property of that name, or one whose
// type the field's type does not accept. Root types hold nothing, so every root field needs one.
// A mapped type rather than codegen's `avoidOptionals`: that would demand a resolver for every
// field, and a resolver per plain property costs the executor a call per value it reads.
import type { GraphQLScalarType } from 'graphql';
import type { Resolver, Resolvers, ResolversParentTypes } from '../generated/resolvers.ts';

type ObjectTypeName = {
  [T in keyof Resolvers & keyof ResolversParentTypes]: NonNullable<Resolvers[T]> extends GraphQLScalarType ? never : T;
}[keyof Resolvers & keyof ResolversParentTypes];

/** What the executor hands a field's resolver; root types (`Record<PropertyKey, never>`) hold nothing. */
type ParentOf<T extends ObjectTypeName> = string extends keyof ResolversParentTypes[T] ? {} : ResolversParentTypes[T];

type ResultOf<R> = R extends Resolver<infer TResult, any, any, any> ? TResult : never;

/** The fields of type `T` that the executor could not read from the parent as they are. */
type FieldsNeedingResolvers<T extends ObjectTypeName> = {
  [F in Exclude<keyof NonNullable<Resolvers[T]>, `__${string}`>]-?: F extends keyof ParentOf<T>
    ? ParentOf<T>[F] extends Awaited<ResultOf<NonNullable<Resolvers[T]>[F]>>
      ? never
      : F
    : F;
}[Exclude<keyof NonNullable<Resolvers[T]>, `__${string}`>];

type TypesNeedingResolvers = { [T in ObjectTypeName]: [FieldsNeedingResolvers<T>] extends [never] ? never : T }[ObjectTypeName];

/** `Resolvers`, with the resolvers the executor cannot do without made required. */
export type CheckedResolvers = {
  [T in TypesNeedingResolvers]-?: NonNullable<Resolvers[T]> & {
    [F in FieldsNeedingResolvers<T>]-?: NonNullable<NonNullable<Resolvers[T]>[F]>;
  };
} & { [T in Exclude<keyof Resolvers, TypesNeedingResolvers>]?: Resolvers[T] };
