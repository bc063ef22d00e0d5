// Control.id: opaque and unique across all controls. v1 framework ids are unique across
// organizations and a control's client-chosen id is unique within its framework, so the pair names
// one control; it is encoded (base64url of a JSON array) so that no control id, whatever
// separators it holds, can make two pairs look alike, and so that clients treat it as opaque.

export function controlNodeId(frameworkId: number, controlId: string): string {
  return Buffer.from(JSON.stringify(['Control', frameworkId, controlId])).toString('base64url');
}

/** How many encoded ids a gateway keeps; past that they are forgotten, all at once. */
const MAX_REMEMBERED_IDS = 4_096;
/** Longer control ids are encoded every time (v1 takes at most 100 characters): memory stays bounded. */
const MAX_REMEMBERED_LENGTH = 128;

/**
 * One gateway's control ids, each encoded once. Every read of a framework lists all its controls
 * again, and the encoding (a JSON array, a Buffer, base64url) cost a list of frameworks more than
 * any other part of its mapping; a lookup costs a tenth of it. The id is a function of the pair
 * alone, so nothing here can go stale.
 */
export class ControlIds {
  readonly #known = new Map<string, string>();

  of(frameworkId: number, controlId: string): string {
    if (controlId.length > MAX_REMEMBERED_LENGTH) return controlNodeId(frameworkId, controlId);
    // The framework id is an integer: the first ':' ends it, whatever the control id holds.
    const key = `${frameworkId}:${controlId}`;
    let id = this.#known.get(key);
    if (id === undefined) {
      id = controlNodeId(frameworkId, controlId);
      if (this.#known.size >= MAX_REMEMBERED_IDS) this.#known.clear();
      this.#known.set(key, id);
    }
    return id;
  }
}
