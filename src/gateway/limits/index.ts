// The query limits: settings, the Apollo options that apply them, and the upstream call budget.
export { DEFAULT_LIMITS, LIMIT_SETTINGS, LimitReason, type QueryLimits } from './settings.ts';
export { batchTooLarge, limitOptions, type LimitOptions } from './apollo.ts';
export { CallBudget, UpstreamBudgetExceededError } from './call-budget.ts';
export { DEFAULT_PAGE_SIZES, QueryTooComplexError, connectionCostEstimator, costLimitPlugin, estimateCost } from './cost.ts';
export { queryShapeRules } from './shape-rules.ts';
