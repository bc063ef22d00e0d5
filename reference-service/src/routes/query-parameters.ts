// Validation of the query string of the two list operations: every problem is reported at once.
import { invalidInput, problem, V1Error } from '../http/errors.ts';
import type { EnvelopeMessage } from '../http/errors.ts';

/** Collects the 400s of several query readers, to answer them together in one envelope. */
export class QueryProblems {
  private readonly messages: EnvelopeMessage[] = [];

  /** What `read` returns, or undefined when it failed with a 400 (kept for `throwIfAny`). */
  take<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof V1Error) || error.status !== 400) throw error;
      this.messages.push(...error.messages);
      return undefined;
    }
  }

  /**
   * A parameter that the operation does not know is a 400 naming it, not silently ignored: a
   * misspelt filter would otherwise return everything.
   */
  rejectUnknown(query: URLSearchParams, known: readonly string[]): void {
    for (const name of new Set(query.keys())) {
      if (!known.includes(name)) {
        this.messages.push(problem.invalid(name, `Unknown query parameter "${name}"; known: ${known.join(', ')}.`));
      }
    }
  }

  throwIfAny(): void {
    if (this.messages.length > 0) throw invalidInput(this.messages);
  }
}
