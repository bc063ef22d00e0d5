// Validates every response the service's suites receive against the package's openapi.yaml, so
// that the reference service and the document cannot drift apart: the document is the v1 contract
// in machine-readable form, and this helper is the only reader of it in the tests.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export interface SentRequest {
  method: string;
  /** Path and query string as sent, e.g. `/api/v1/atb?limit=5`. */
  url: string;
}

export interface ReceivedResponse {
  status: number;
  headers: Headers;
  /** The raw body text. */
  body: string;
}

/** The parsed OpenAPI document (plain JSON values). */
export interface V1OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
  [key: string]: unknown;
}

const DOCUMENT_URL = new URL('../../openapi.yaml', import.meta.url);
const DOCUMENT_ID = 'https://v1-openapi.invalid/v1.openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const BODY_EXCERPT = 500;
const MAX_LINE_PROBLEMS = 20;

type JsonObject = Record<string, unknown>;

interface Route {
  template: string;
  pattern: RegExp;
  paramNames: string[];
  /** Upper-case method to the JSON pointer of its operation. */
  operations: Map<string, string>;
}

interface LoadedApi {
  document: V1OpenApiDocument;
  routes: Route[];
  validatorAt(pointer: string): ValidateFunction;
}

let loaded: LoadedApi | undefined;

/** The parsed OpenAPI document: a copy, so that callers cannot change what responses are checked against. */
export function loadV1OpenApi(): V1OpenApiDocument {
  return structuredClone(load().document);
}

/** Throws an Error naming every mismatch between the response and the OpenAPI document. */
export function assertV1Response(req: SentRequest, res: ReceivedResponse): void {
  const api = load();
  const url = splitUrl(req.url);
  const method = req.method.toUpperCase();
  const subject = describeSubject(api, method, url.pathname);
  const problems: string[] = [];
  const fail = (): never => {
    throw new Error(
      `v1 response to ${subject.name}, status ${res.status}, breaks openapi.yaml:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\nbody: ${res.body.slice(0, BODY_EXCERPT)}`,
    );
  };

  const responses = asObject(valueAt(api.document, subject.responsesPointer));
  const status = String(res.status);
  if (!(status in responses)) {
    problems.push(
      `undocumented status ${res.status} for ${subject.name} (declared: ${Object.keys(responses).join(', ')})`,
    );
    fail();
  }
  const response = resolveRef(api.document, `${subject.responsesPointer}/${escapeSegment(status)}`);

  checkHeaders(api, response, res.headers, problems);
  if (subject.allowedMethods && res.status === 405) {
    checkAllow(res.headers.get('allow'), subject.allowedMethods, method, problems);
  }
  if (subject.operationPointer && res.status >= 200 && res.status < 300) {
    checkRequestWasValid(api, subject.operationPointer, subject.pathParams, url.searchParams, res.status, problems);
  }
  // A HEAD answer and the bodiless statuses cannot carry the content the document describes.
  if (method !== 'HEAD' && res.status !== 204 && res.status !== 304) {
    checkContent(api, response, subject, url.searchParams, res, problems);
  }
  if (problems.length > 0) fail();
}

/**
 * The path exactly as sent (a URL parser would resolve `..` and re-encode, so the route it finds
 * could differ from the one the service saw) and the query.
 */
function splitUrl(sent: string): { pathname: string; searchParams: URLSearchParams } {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(sent);
  const rest = (absolute ? sent.slice(absolute[0].length) : sent).split('#')[0] ?? '';
  const at = rest.indexOf('?');
  return at < 0
    ? { pathname: rest, searchParams: new URLSearchParams() }
    : { pathname: rest.slice(0, at), searchParams: new URLSearchParams(rest.slice(at + 1)) };
}

interface Subject {
  /** How errors name the request: `GET /api/v1/atb (listProtectionDevices)`. */
  name: string;
  responsesPointer: string;
  operationPointer?: string;
  pathParams: Record<string, string>;
  /** Set when the path is known but the method is not: the methods the path has. */
  allowedMethods?: string[];
}

function describeSubject(api: LoadedApi, method: string, pathname: string): Subject {
  for (const route of api.routes) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    const pathParams: Record<string, string> = {};
    route.paramNames.forEach((name, i) => {
      pathParams[name] = decodeSegment(match[i + 1] ?? '');
    });
    const operationPointer = route.operations.get(method);
    if (!operationPointer) {
      return {
        name: `${method} ${route.template} (no such operation)`,
        responsesPointer: '/x-unmatched-requests/methodNotAllowed',
        pathParams,
        allowedMethods: [...route.operations.keys()],
      };
    }
    const operationId = asObject(valueAt(api.document, operationPointer)).operationId;
    return {
      name: `${method} ${route.template} (${String(operationId)})`,
      responsesPointer: `${operationPointer}/responses`,
      operationPointer,
      pathParams,
    };
  }
  return {
    name: `unknown route ${method} ${pathname}`,
    responsesPointer: '/x-unmatched-requests/unknownRoute',
    pathParams: {},
  };
}

function checkHeaders(api: LoadedApi, response: Resolved, headers: Headers, problems: string[]): void {
  const declared = asObject(response.value.headers ?? {});
  for (const name of Object.keys(declared)) {
    const header = resolveRef(api.document, `${response.pointer}/headers/${escapeSegment(name)}`);
    const value = headers.get(name);
    if (value === null) {
      if (header.value.required === true) problems.push(`missing header ${name}`);
      continue;
    }
    if (header.value.schema !== undefined) {
      const validate = api.validatorAt(`${header.pointer}/schema`);
      if (!validate(value)) problems.push(...formatErrors(validate.errors, `header ${name}`));
    }
  }
}

function checkAllow(allow: string | null, allowed: string[], method: string, problems: string[]): void {
  if (allow === null) return; // reported as a missing required header
  const listed = new Set(allow.split(',').map((m) => m.trim().toUpperCase()));
  const missing = allowed.filter((m) => !listed.has(m));
  if (missing.length > 0) problems.push(`header Allow "${allow}" does not list ${missing.join(', ')}`);
  if (listed.has(method)) problems.push(`header Allow "${allow}" lists the refused method ${method}`);
}

function checkContent(
  api: LoadedApi,
  response: Resolved,
  subject: Subject,
  query: URLSearchParams,
  res: ReceivedResponse,
  problems: string[],
): void {
  const content = asObject(response.value.content ?? {});
  const declaredTypes = Object.keys(content);
  if (declaredTypes.length === 0) {
    if (res.body !== '') problems.push('a body was sent where the document declares none');
    return;
  }
  const contentType = res.headers.get('content-type');
  const [essence = '', ...parameters] = (contentType ?? '').split(';').map((p) => p.trim());
  const mediaType = essence.toLowerCase();
  if (!declaredTypes.includes(mediaType)) {
    problems.push(`content type ${JSON.stringify(contentType)} is not declared (declared: ${declaredTypes.join(', ')})`);
    return;
  }
  for (const parameter of parameters) {
    const [key = '', value = ''] = parameter.split('=').map((p) => p.trim().toLowerCase());
    if (key === 'charset' && value.replace(/"/g, '') !== 'utf-8') {
      problems.push(`content type ${JSON.stringify(contentType)} is not UTF-8`);
    }
  }

  const mediaPointer = `${response.pointer}/content/${escapeSegment(mediaType)}`;
  const media = asObject(content[mediaType]);
  checkExportSelection(content, media, mediaType, query, problems);
  for (const name of asStringArray(media['x-required-headers'])) {
    if (res.headers.get(name) === null) problems.push(`missing header ${name} (required with ${mediaType})`);
  }
  if (typeof media['x-content-disposition'] === 'string') {
    const expected = media['x-content-disposition'].replace(/\{(\w+)\}/g, (_, p: string) => subject.pathParams[p] ?? `{${p}}`);
    const actual = res.headers.get('content-disposition');
    if (actual !== null && actual !== expected) {
      problems.push(`header Content-Disposition is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  }

  let body: unknown = res.body;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      body = JSON.parse(res.body);
    } catch {
      problems.push('the body is not JSON');
      return;
    }
  }
  const validate = api.validatorAt(`${mediaPointer}/schema`);
  if (!validate(body)) problems.push(...formatErrors(validate.errors, 'body'));

  if (media['x-item-schema'] !== undefined) checkLines(api, `${mediaPointer}/x-item-schema`, res.body, problems);
  if (subject.operationPointer && res.status === 200 && subject.pathParams.organizationid !== undefined) {
    checkEvidencePaths(body, subject.pathParams.organizationid, problems);
  }
}

/** An export is chosen by the `export` query value (`x-export` on its media type); a page otherwise. */
function checkExportSelection(
  content: JsonObject,
  media: JsonObject,
  mediaType: string,
  query: URLSearchParams,
  problems: string[],
): void {
  const exports = Object.values(content).map((m) => asObject(m)['x-export']).filter((e) => typeof e === 'string');
  if (exports.length === 0) return;
  const requested = query.get('export');
  const sent = typeof media['x-export'] === 'string' ? media['x-export'] : null;
  if (requested !== null && exports.includes(requested) && sent !== requested) {
    problems.push(`export=${requested} was requested but the response is ${mediaType}`);
  } else if (sent !== null && sent !== requested) {
    problems.push(`the response is a ${sent} export but export=${String(requested)} was requested`);
  }
}

function checkLines(api: LoadedApi, itemPointer: string, text: string, problems: string[]): void {
  const validate = api.validatorAt(itemPointer);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let reported = 0;
  for (const [index, line] of lines.entries()) {
    if (reported >= MAX_LINE_PROBLEMS) {
      problems.push(`(further lines not checked after ${MAX_LINE_PROBLEMS} bad ones)`);
      return;
    }
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      problems.push(`line ${index + 1} is not JSON`);
      reported++;
      continue;
    }
    if (!validate(item)) {
      problems.push(...formatErrors(validate.errors, `line ${index + 1}`));
      reported++;
    }
  }
}

/**
 * An evidence file path names its organization, framework and control
 * (`/api/v1/documents/organizations/<org>/security-frameworks/<fw>/documents/<control>/<file>`):
 * the ids must be those of the framework and control that carry it.
 */
function checkEvidencePaths(body: unknown, organizationId: string, problems: string[]): void {
  const root = isObject(body) ? body : {};
  const frameworks = Array.isArray(root.data) ? root.data : [root.security_framework];
  for (const framework of frameworks) {
    if (!isObject(framework) || !Array.isArray(framework.security_frameworks)) continue;
    for (const control of framework.security_frameworks) {
      if (!isObject(control) || !Array.isArray(control.evidences)) continue;
      for (const evidence of control.evidences) {
        if (!isObject(evidence) || !Array.isArray(evidence.files)) continue;
        for (const file of evidence.files) {
          if (typeof file !== 'string') continue;
          const parts = file.split('/');
          // ['', 'api', 'v1', 'documents', 'organizations', org, 'security-frameworks', fw, 'documents', control, name]
          const controlSegment = parts[9] ?? '';
          if (
            Number(parts[5]) !== Number(organizationId) ||
            Number(parts[7]) !== framework.id ||
            (controlSegment !== control.id && decodeSegment(controlSegment) !== control.id)
          ) {
            problems.push(
              `evidence file ${JSON.stringify(file)} of control ${JSON.stringify(control.id)} in framework ${String(framework.id)} of organization ${organizationId} names other ids`,
            );
          }
        }
      }
    }
  }
}

/** A success answer to a request that the document calls invalid is drift too (it should have been 400). */
function checkRequestWasValid(
  api: LoadedApi,
  operationPointer: string,
  pathParams: Record<string, string>,
  query: URLSearchParams,
  status: number,
  problems: string[],
): void {
  const operation = asObject(valueAt(api.document, operationPointer));
  const count = Array.isArray(operation.parameters) ? operation.parameters.length : 0;
  for (let i = 0; i < count; i++) {
    const parameter = resolveRef(api.document, `${operationPointer}/parameters/${i}`);
    const name = String(parameter.value.name);
    const schemaPointer = `${parameter.pointer}/schema`;
    const schema = resolveRef(api.document, schemaPointer).value;
    let value: unknown;
    if (parameter.value.in === 'path') {
      value = coerce(schema, pathParams[name] ?? '');
    } else if (parameter.value.in === 'query') {
      const values = query.getAll(name);
      if (values.length === 0) continue;
      value = schema.type === 'array' ? values.map((v) => coerce(asObject(schema.items ?? {}), v)) : coerce(schema, values[0] ?? '');
    } else {
      continue;
    }
    const validate = api.validatorAt(schemaPointer);
    if (!validate(value)) {
      problems.push(...formatErrors(validate.errors, `request ${parameter.value.in} parameter ${name} (answered ${status})`));
    }
  }
}

/** Query and path values travel as text; read them as the schema's type would be written in JSON. */
function coerce(schema: JsonObject, raw: string): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(?:\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}

function formatErrors(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const params = e.params as Record<string, unknown>;
    const detail = params.additionalProperty ?? params.unevaluatedProperty ?? params.allowedValue ?? params.allowedValues;
    return `${where} ${e.instancePath || '/'}: ${e.message ?? e.keyword}${detail === undefined ? '' : ` (${JSON.stringify(detail)})`}`;
  });
}

// ---- loading ----------------------------------------------------------------------------

function load(): LoadedApi {
  if (loaded) return loaded;
  const document = parse(readFileSync(DOCUMENT_URL, 'utf8')) as V1OpenApiDocument;
  const ajv = new Ajv2020({ allErrors: true, strictTuples: false });
  addFormats.default(ajv);
  // The whole document is registered as one schema so that `$ref`s and JSON pointers into it
  // resolve as written; its OpenAPI keys are not JSON Schema keywords, so strict mode is told
  // they are inert ones.
  for (const key of Object.keys(document)) ajv.addKeyword(key);
  ajv.addSchema(document, DOCUMENT_ID);

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (!validate) {
      const fragment = pointer.split('/').map(encodeURIComponent).join('/');
      validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
      if (!validate) throw new Error(`openapi.yaml has no schema at ${pointer}`);
      validators.set(pointer, validate);
    }
    return validate;
  };

  const routes = Object.entries(document.paths).map(([template, pathItem]): Route => {
    const paramNames: string[] = [];
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const param = /^\{([^}]+)\}$/.exec(part);
        if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        paramNames.push(param[1] ?? '');
        return '([^/]+)';
      })
      .join('');
    const operations = new Map<string, string>();
    for (const method of HTTP_METHODS) {
      if (pathItem[method] !== undefined) {
        operations.set(method.toUpperCase(), `/paths/${escapeSegment(template)}/${method}`);
      }
    }
    return { template, pattern: new RegExp(`^${source}$`), paramNames, operations };
  });
  // A literal path wins over a templated one that also matches (OpenAPI's rule).
  routes.sort((a, b) => a.paramNames.length - b.paramNames.length);

  // Compile every schema the checks can reach now, so that a broken document fails at once and
  // by name rather than in the middle of some suite.
  for (const route of routes) {
    for (const operationPointer of route.operations.values()) compileOperation(document, operationPointer, validatorAt);
  }
  for (const group of ['unknownRoute', 'methodNotAllowed']) {
    compileResponses(document, `/x-unmatched-requests/${group}`, validatorAt);
  }

  loaded = { document, routes, validatorAt };
  return loaded;
}

function compileOperation(document: unknown, operationPointer: string, compile: (pointer: string) => unknown): void {
  const operation = asObject(valueAt(document, operationPointer));
  const count = Array.isArray(operation.parameters) ? operation.parameters.length : 0;
  for (let i = 0; i < count; i++) compile(`${resolveRef(document, `${operationPointer}/parameters/${i}`).pointer}/schema`);
  compileResponses(document, `${operationPointer}/responses`, compile);
}

function compileResponses(document: unknown, responsesPointer: string, compile: (pointer: string) => unknown): void {
  for (const status of Object.keys(asObject(valueAt(document, responsesPointer)))) {
    const response = resolveRef(document, `${responsesPointer}/${escapeSegment(status)}`);
    for (const name of Object.keys(asObject(response.value.headers))) {
      const header = resolveRef(document, `${response.pointer}/headers/${escapeSegment(name)}`);
      if (header.value.schema !== undefined) compile(`${header.pointer}/schema`);
    }
    for (const [mediaType, media] of Object.entries(asObject(response.value.content))) {
      const mediaPointer = `${response.pointer}/content/${escapeSegment(mediaType)}`;
      compile(`${mediaPointer}/schema`);
      if (asObject(media)['x-item-schema'] !== undefined) compile(`${mediaPointer}/x-item-schema`);
    }
  }
}

// ---- JSON pointers ----------------------------------------------------------------------

interface Resolved {
  pointer: string;
  value: JsonObject;
}

function resolveRef(document: unknown, pointer: string): Resolved {
  let current = pointer;
  let value = asObject(valueAt(document, current));
  for (let hops = 0; typeof value.$ref === 'string'; hops++) {
    if (!value.$ref.startsWith('#') || hops > 20) throw new Error(`cannot follow $ref ${value.$ref} at ${current}`);
    current = decodeURIComponent(value.$ref.slice(1));
    value = asObject(valueAt(document, current));
  }
  return { pointer: current, value };
}

function valueAt(document: unknown, pointer: string): unknown {
  let value = document;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    value = isObject(value) || Array.isArray(value) ? (value as JsonObject)[key] : undefined;
  }
  return value;
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function asStringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
