import type { FrameworkInput, ControlInput } from '../storage/frameworks.ts';
import { validationFailed } from '../http/errors.ts';
import { cronProblem } from './cron.ts';
import { Problems, checkFreeForm, checkString, fieldPath, isPlainObject } from './problems.ts';

export const MAX_CONTROLS = 500;
export const MAX_TITLE_LENGTH = 200;
export const MAX_CONTROL_ID_LENGTH = 100;

const FRAMEWORK_FIELDS: ReadonlySet<string> = new Set(['title', 'security_frameworks']);
const CONTROL_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'title',
  'weight',
  'details',
  'evidences',
  'frequency',
  'description',
  'evidence_type',
]);

/**
 * The body of framework create and edit, checked against every rule of the contract. Throws one
 * 400 listing every problem, each with the dotted path of its field. `evidences` of a control is
 * accepted and ignored (evidence belongs to the service).
 */
export function parseFrameworkBody(body: unknown): FrameworkInput {
  if (!isPlainObject(body)) throw validationFailed('The request body must be a JSON object.');
  const problems = new Problems();
  problems.unknownFields(body, FRAMEWORK_FIELDS, '');
  const title = body['title'];
  checkString(problems, title, 'title', { min: 1, max: MAX_TITLE_LENGTH });

  const list = body['security_frameworks'];
  const controls: ControlInput[] = [];
  if (list === undefined) {
    problems.invalid('security_frameworks', 'security_frameworks is required.');
  } else if (!Array.isArray(list)) {
    problems.invalid('security_frameworks', 'security_frameworks must be an array of controls.');
  } else if (list.length > MAX_CONTROLS) {
    // Items are not examined: a body of many tiny bad controls would otherwise yield a huge answer.
    problems.invalid('security_frameworks', `security_frameworks must have at most ${MAX_CONTROLS} controls.`);
  } else {
    const firstIndexOfId = new Map<string, number>();
    list.forEach((item, index) => {
      const control = parseControl(problems, item, fieldPath('security_frameworks', index));
      if (!control) return;
      const earlier = firstIndexOfId.get(control.id);
      if (earlier !== undefined) {
        const field = fieldPath(fieldPath('security_frameworks', index), 'id');
        problems.invalid(field, `${field} repeats the id of security_frameworks.${earlier}.`);
        return;
      }
      firstIndexOfId.set(control.id, index);
      controls.push(control);
    });
  }
  problems.throwIfAny();
  return { title: title as string, security_frameworks: controls };
}

function parseControl(problems: Problems, item: unknown, prefix: string): ControlInput | undefined {
  if (!isPlainObject(item)) {
    problems.invalid(prefix, `${prefix} must be an object.`);
    return undefined;
  }
  const before = problems.count;
  problems.unknownFields(item, CONTROL_FIELDS, prefix);
  const at = (name: string): string => fieldPath(prefix, name);

  checkString(problems, item['id'], at('id'), { min: 1, max: MAX_CONTROL_ID_LENGTH });
  for (const name of ['type', 'title', 'evidence_type']) checkString(problems, item[name], at(name), { min: 1 });

  const weight = item['weight'];
  if (weight === undefined) problems.invalid(at('weight'), `${at('weight')} is required.`);
  else if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
    problems.invalid(at('weight'), `${at('weight')} must be a finite number of at least 0.`);
  }

  const frequency = item['frequency'];
  if (checkString(problems, frequency, at('frequency'), { min: 1 })) {
    const wrong = cronProblem(frequency);
    if (wrong) problems.invalid(at('frequency'), `${at('frequency')} ${wrong}.`);
  }

  const description = item['description'] === undefined ? '' : item['description'];
  checkString(problems, description, at('description'));

  const details = item['details'] === undefined ? {} : item['details'];
  if (!isPlainObject(details)) problems.invalid(at('details'), `${at('details')} must be an object.`);
  else checkFreeForm(problems, details, at('details'));

  if (problems.count > before) return undefined;
  return {
    id: item['id'] as string,
    type: item['type'] as string,
    title: item['title'] as string,
    weight: weight as number,
    details: details as Record<string, unknown>,
    frequency: frequency as string,
    description: description as string,
    evidence_type: item['evidence_type'] as string,
  };
}
