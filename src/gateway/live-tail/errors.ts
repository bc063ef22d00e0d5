// The tail's own failures, as the contract names them.
import { ErrorCode, GatewayError } from '../errors.ts';

/** More entries were missed than the tail can replay: the client reads the gap with `trafficLog`. */
export function tailGap(message: string): GatewayError {
  return new GatewayError(message, { code: ErrorCode.TAIL_GAP });
}
