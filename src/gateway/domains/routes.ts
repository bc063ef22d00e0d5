// Every domain's v1 routes with their response cache rules, for the cache to look a call's rule up.
import type { DeclaredRule } from '../response-cache/rules.ts';
import { deviceCacheRules } from './protection-devices/routes.ts';
import { frameworkCacheRules } from './security-frameworks/routes.ts';
import { webProtectionCacheRules } from './web-protection/routes.ts';

export const ROUTE_CACHE_RULES: readonly DeclaredRule[] = [...frameworkCacheRules, ...webProtectionCacheRules, ...deviceCacheRules];
