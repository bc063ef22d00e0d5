// The upstream call budget of one GraphQL request. The cost limit bounds the size of an answer,
// not the calls behind it (aliases of small nested pages are cheap but each is a call), so this
// is the backstop: past the budget, each further call fails on its own field and the data
// already fetched still comes back.
import { ErrorCode, GatewayError } from '../errors.ts';

export class UpstreamBudgetExceededError extends GatewayError {
  constructor(limit: number) {
    super(`This operation needs more than ${limit} upstream calls; the fields past that limit were not read. Ask for fewer nested connections or smaller pages.`, {
      code: ErrorCode.UPSTREAM_BUDGET_EXCEEDED,
      limit,
    });
    this.name = 'UpstreamBudgetExceededError';
  }
}

/**
 * One per GraphQL request, created with the request's context. Whatever sends an upstream call
 * calls `take()` first: it throws UpstreamBudgetExceededError (a GraphQLError, so the field
 * fails with that code) once `limit` calls were taken. Batched operations of one HTTP request
 * share their context, hence one budget.
 */
export class CallBudget {
  #taken = 0;

  constructor(readonly limit: number) {}

  take(): void {
    if (this.#taken >= this.limit) throw new UpstreamBudgetExceededError(this.limit);
    this.#taken += 1;
  }

  get taken(): number {
    return this.#taken;
  }

  /** True once every allowed call was taken: the next `take()` throws. */
  get exhausted(): boolean {
    return this.#taken >= this.limit;
  }
}
