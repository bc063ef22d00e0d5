// Mutation payloads. A mutation's payload is non-null in the contract, so an upstream failure is
// put on the payload's object field instead: that field is null with its error, and the other
// mutations of the same request keep their results (GraphQL would otherwise null all `data`).

export interface MutationOutcome<T> {
  value?: T;
  error?: unknown;
}

export async function outcomeOf<T>(work: () => Promise<T>): Promise<MutationOutcome<T>> {
  try {
    return { value: await work() };
  } catch (error) {
    return { error };
  }
}

/** The object of a payload, or its error thrown at the payload's field. */
export function valueOf<T>(outcome: MutationOutcome<T>): T | null {
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.value ?? null;
}
