// Text a client sends must be Unicode as sent: a lone UTF-16 surrogate (`"x\ud800y"` in JSON) is
// no character, and whatever stores it (v1 writes UTF-8) would store a replacement character
// instead, other than what was sent. Such a request is refused before any work, naming the place.

/** A JSON text can only hold a lone surrogate through a `\uD800`–`\uDFFF` escape. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The path (`variables.input.title`) of the first string or key that is not well-formed Unicode. */
function illFormedAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!key.isWellFormed()) return `${path} (a key)`;
    const found = illFormedAt(item, `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where a parsed JSON request body holds a lone surrogate, or undefined when it holds none. The
 * raw text tells first, and cheaply, whether there is any escape that could make one.
 */
export function loneSurrogateIn(text: string, body: unknown): string | undefined {
  if (!SURROGATE_ESCAPE.test(text)) return undefined;
  const found = illFormedAt(body, 'body');
  return found?.replace(/^body\.?/, '') || found;
}
