// The last gate before a client: Apollo Server's `formatError`. Errors that carry one of the
// gateway's codes (errors.ts) or Apollo's own pass; anything else is a gateway bug, masked as
// INTERNAL_SERVER_ERROR and reported for the log. "Did you mean …?" suggestions are hidden here too,
// when the settings say so: both decide what a client may learn from an error.
import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode, GatewayError, defaultMessage, isCancelled, isGraphQLError, unwrapResolverError } from './errors.ts';


/**
 * Refusals Apollo Server makes with a bare message and no code: each is the client's mistake, so
 * it gets a code of its own and words that say what to do, instead of a masked internal error.
 */
const APOLLO_BARE_REFUSALS: Readonly<Record<string, { code: string; message: string }>> = {
  'provided sha does not match query': {
    code: 'PERSISTED_QUERY_HASH_MISMATCH',
    message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it: hash the exact query text, in lowercase hex.',
  },
};

/**
 * Apollo's refusal of introspection tells the reader to "pass introspection: true to
 * ApolloServer", an option of code the gateway's operator does not write: it names the setting.
 */
const INTROSPECTION_REFUSAL = /^GraphQL introspection is not allowed by Apollo Server/;
const INTROSPECTION_OFF = {
  message:
    'Introspection is off on this gateway (INTROSPECTION=false, the default in production): __schema and __type are not answered. Generate clients from the printed schema, or set INTROSPECTION=true.',
  extensions: { code: 'GRAPHQL_VALIDATION_FAILED', reason: 'INTROSPECTION_DISABLED' },
};

/** Codes Apollo Server itself produces for requests it refuses (parse, validation, variables, …),
 *  and those the gateway gives its own refusals before execution. */
const APOLLO_CODES = new Set<string>([
  'OPERATION_NOT_SUPPORTED',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  // Trusted documents' refusal of a subscription (over HTTP it is answered before Apollo).
  'PERSISTED_QUERY_NOT_ALLOWED',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'INTROSPECTION_DISABLED',
  'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
]);
const PUBLIC_CODES = new Set<string>(
  Object.values(ErrorCode).filter((code) => code !== ErrorCode.INTERNAL_SERVER_ERROR),
);

export interface FormatErrorOptions {
  /** Keep Apollo's `extensions.stacktrace` (development only). Default false. */
  includeStacktrace?: boolean;
  /** Called with the original error of every masked error (a gateway bug), for the log. */
  onUnexpectedError?: (error: unknown) => void;
}

export type FormatError = (formattedError: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * Apollo Server's `formatError`: errors carrying a known code pass (without a stack trace unless
 * asked); anything else is `INTERNAL_SERVER_ERROR` with a generic message, its original reported
 * to `onUnexpectedError`. A gateway code only counts on a GatewayError (made in this file), an
 * Apollo code on a GraphQLError: a stray object with an `extensions` field cannot pass.
 */
export function createFormatError(options: FormatErrorOptions = {}): FormatError {
  return (formattedError, error) => {
    const original = unwrapResolverError(error);
    const bare = formattedError.extensions?.code === undefined || formattedError.extensions.code === 'INTERNAL_SERVER_ERROR'
      ? APOLLO_BARE_REFUSALS[formattedError.message]
      : undefined;
    if (bare && isGraphQLError(original)) return { message: bare.message, extensions: { code: bare.code } };
    if (isGraphQLError(original) && INTROSPECTION_REFUSAL.test(formattedError.message)) {
      return { ...INTROSPECTION_OFF, ...(formattedError.locations ? { locations: formattedError.locations } : {}) };
    }
    const code = formattedError.extensions?.code;
    const known =
      typeof code === 'string' &&
      ((original instanceof GatewayError && PUBLIC_CODES.has(code)) || (isGraphQLError(original) && APOLLO_CODES.has(code)));
    const { stacktrace, ...extensions } = formattedError.extensions ?? {};
    const keepStack = options.includeStacktrace && stacktrace !== undefined ? { stacktrace } : {};
    if (known) return { ...formattedError, extensions: { ...extensions, ...keepStack } };
    if (!isCancelled(original)) options.onUnexpectedError?.(original);
    return {
      message: defaultMessage.INTERNAL_SERVER_ERROR,
      ...(formattedError.locations ? { locations: formattedError.locations } : {}),
      ...(formattedError.path ? { path: formattedError.path } : {}),
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR, ...keepStack },
    };
  };
}

const SUGGESTION = / ?Did you mean [^?]*\?/g;

/**
 * Apollo's `hideSchemaDetailsFromClientErrors` strips suggestions from validation errors only;
 * graphql-js also suggests in variable coercion errors (a misspelt enum value or input field in
 * `variables`). This strips them from every error, after `format`.
 */
export function withoutSuggestions(format: FormatError, hide: boolean): FormatError {
  if (!hide) return format;
  return (formatted, error) => {
    const result = format(formatted, error);
    const message = result.message.replace(SUGGESTION, '');
    return message === result.message ? result : { ...result, message };
  };
}
