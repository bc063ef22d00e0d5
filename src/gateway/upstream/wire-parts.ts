// Names for the inline parts of the wire records in wire.ts, so that codegen can map the GraphQL
// types of those parts (check stats, device plugin) onto them.
import type { WireDeviceCheck, WireProtectionDevice, WireWebProtectionCheck } from './wire.ts';

export type WireWebProtectionCheckStat = WireWebProtectionCheck['stat'];
export type WireDeviceCheckStat = WireDeviceCheck['stat'];
export type WireDevicePlugin = WireProtectionDevice['plugin'];
