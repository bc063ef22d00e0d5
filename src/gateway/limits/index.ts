// The query limits as the rest of the gateway uses them: the settings' defaults, the Apollo
// options that apply them, the upstream call budget, and the cost estimate.
export { DEFAULT_LIMITS } from './settings.ts';
export { batchTooLarge, limitOptions } from './apollo.ts';
export { CallBudget } from './call-budget.ts';
export { estimateCost } from './cost.ts';
