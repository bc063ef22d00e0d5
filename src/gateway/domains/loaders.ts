// The loaders of one GraphQL request, from every domain: their caches live and die with it.
import type { UpstreamClient } from '../upstream/client.ts';
import { createDeviceLoaders, type DeviceLoaders } from './protection-devices/loaders.ts';
import { createFrameworkLoaders, type FrameworkLoaders } from './security-frameworks/loaders.ts';
import { createWebProtectionLoaders, type WebProtectionLoaders } from './web-protection/loaders.ts';

export type Loaders = FrameworkLoaders & DeviceLoaders & WebProtectionLoaders;

export function createLoaders(client: UpstreamClient): Loaders {
  return { ...createFrameworkLoaders(client), ...createDeviceLoaders(client), ...createWebProtectionLoaders(client) };
}
