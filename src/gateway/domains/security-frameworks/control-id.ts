// Control.id: opaque and unique across all controls. v1 framework ids are unique across
// organizations and a control's client-chosen id is unique within its framework, so the pair names
// one control; it is encoded (base64url of a JSON array) so that no control id, whatever
// separators it holds, can make two pairs look alike, and so that clients treat it as opaque.

export function controlNodeId(frameworkId: number, controlId: string): string {
  return Buffer.from(JSON.stringify(['Control', frameworkId, controlId])).toString('base64url');
}
