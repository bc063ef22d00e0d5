// Checks of selector arguments that the v1 contract constrains (positive integer ids), made
// before any upstream call so that a typo is a clear BAD_USER_INPUT rather than a round trip.
import { badUserInput } from '../../errors.ts';

const POSITIVE_INTEGER = /^[1-9]\d{0,15}$/;

export function isPositiveIntegerId(value: string): boolean {
  return POSITIVE_INTEGER.test(value);
}

/** The id as the v1 path wants it, or BAD_USER_INPUT naming the argument. */
export function requirePositiveId(value: string, argument: string): string {
  if (!isPositiveIntegerId(value)) throw badUserInput(`${argument} must be a positive integer id, got "${value.slice(0, 40)}".`, argument);
  return value;
}
