// The `frequency` of a control: five space-separated cron fields, each `*`, a number, a range
// `a-b`, a step `*/n` or `a-b/n`, or a comma list of those, within the field's bounds.

interface CronField {
  name: string;
  min: number;
  max: number;
}

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
];

const ITEM = /^(?:(\*)|(\d{1,2})(?:-(\d{1,2}))?)(?:\/([1-9]\d*))?$/;

function checkItem(item: string, { min, max }: CronField): string | undefined {
  const match = ITEM.exec(item);
  if (!match) return `"${item}" is not *, a number, a range a-b or a step */n or a-b/n`;
  const [, star, start, end, step] = match;
  // A step applies to `*` or a range, not to a single number ("5/10").
  if (step !== undefined && star === undefined && end === undefined) {
    return `"${item}" has a step but no range`;
  }
  const inBounds = (text: string | undefined): boolean =>
    text === undefined || (Number(text) >= min && Number(text) <= max);
  if (!inBounds(start) || !inBounds(end)) return `"${item}" is outside ${min}-${max}`;
  if (start !== undefined && end !== undefined && Number(start) > Number(end)) {
    return `"${item}" is a range whose start is after its end`;
  }
  if (step !== undefined && (Number(step) < 1 || Number(step) > max)) {
    return `"${item}" has a step outside 1-${max}`;
  }
  return undefined;
}

/** Undefined when `expression` is a valid frequency, else what is wrong with it. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.split(' ');
  if (fields.length !== 5 || fields.some((field) => field === '')) {
    return 'must be five cron fields separated by single spaces (minute hour day month weekday)';
  }
  for (const [index, field] of fields.entries()) {
    const spec = CRON_FIELDS[index]!;
    for (const item of field.split(',')) {
      const wrong = checkItem(item, spec);
      if (wrong) return `has an invalid ${spec.name} field: ${wrong}`;
    }
  }
  return undefined;
}
