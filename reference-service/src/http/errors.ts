import type { EnvelopeMessage } from '../records.ts';

export type { EnvelopeMessage } from '../records.ts';

/**
 * A failure the client caused or may learn about: its status and messages go out in the envelope
 * as they are. Anything else thrown by a handler becomes a 500 `internal` that says nothing more.
 */
export class V1Error extends Error {
  readonly status: number;
  readonly messages: EnvelopeMessage[];
  /** Extra response headers, e.g. `Allow` on a 405. */
  readonly headers: Record<string, string>;

  constructor(status: number, messages: EnvelopeMessage | EnvelopeMessage[], headers: Record<string, string> = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list[0]?.message ?? `status ${status}`);
    this.name = 'V1Error';
    this.status = status;
    this.messages = list;
    this.headers = headers;
  }
}

function message(code: string, text: string, field?: string): EnvelopeMessage {
  return field === undefined ? { code, message: text } : { code, message: text, field };
}

/** 400 `validation_failed` for one input; `field` is a dotted body path or a query parameter name. */
export function validationFailed(text: string, field?: string): V1Error {
  return new V1Error(400, message('validation_failed', text, field));
}

/** 400 listing every problem found (validation_failed and unknown_field messages). */
export function invalidInput(messages: EnvelopeMessage[]): V1Error {
  return new V1Error(400, messages);
}

export function invalidJson(text = 'The request body is not valid JSON.'): V1Error {
  return new V1Error(400, message('invalid_json', text));
}

export function unauthenticated(text: string): V1Error {
  return new V1Error(401, message('unauthenticated', text));
}

export function forbidden(text: string, field?: string): V1Error {
  return new V1Error(403, message('forbidden', text, field));
}

export function notFound(text = 'Not found.'): V1Error {
  return new V1Error(404, message('not_found', text));
}

export function methodNotAllowed(method: string, allowed: string[]): V1Error {
  const allow = allowed.join(', ');
  return new V1Error(405, message('method_not_allowed', `Method ${method} is not allowed here; allowed: ${allow}.`), {
    Allow: allow,
  });
}

export function payloadTooLarge(limit: number): V1Error {
  return new V1Error(413, message('payload_too_large', `The request body is larger than ${limit} bytes.`));
}

export function unsupportedMediaType(): V1Error {
  return new V1Error(415, message('unsupported_media_type', 'The request body must be sent as application/json.'));
}

/** The only thing a client learns of an unexpected failure. */
export const INTERNAL_MESSAGE: EnvelopeMessage = {
  code: 'internal',
  message: 'The service failed to handle the request. Try again later.',
};

/** Builders for the validation messages that collect several problems before failing. */
export const problem = {
  invalid: (field: string, text: string): EnvelopeMessage => message('validation_failed', text, field),
  unknownField: (field: string): EnvelopeMessage => message('unknown_field', `Unknown field "${field}".`, field),
  tooMany: (unlisted: number): EnvelopeMessage =>
    message('too_many_errors', `${unlisted} more problems were found and are not listed; correct the ones above and send again.`),
};
