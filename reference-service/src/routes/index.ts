import type { V1Route } from '../http/router.ts';
import { deviceRoutes } from './devices.ts';
import { frameworkRoutes } from './frameworks.ts';
import { trafficRoutes } from './traffic.ts';
import { webProtectionRoutes } from './web-protection.ts';

/** Every operation of the v1 contract. */
export const v1Routes: readonly V1Route[] = [...frameworkRoutes, ...webProtectionRoutes, ...deviceRoutes, ...trafficRoutes];
