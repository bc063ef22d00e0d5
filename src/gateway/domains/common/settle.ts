// DataLoader batches settle key by key: one failed page must not fail the other pages of its batch.

/** Each key's value or its own error, in the order of the keys. */
export function settleEach<K, V>(keys: readonly K[], load: (key: K) => Promise<V>): Promise<(V | Error)[]> {
  return Promise.all(keys.map((key) => load(key).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))));
}
