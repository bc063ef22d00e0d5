// How the trigrams spread over the entries, for choosing which trigrams a search asks the index
// for (see chooseTrigrams): a sample of entries kept in memory, a thousand spread evenly over the
// ids, read again when the table has doubled (or shrunk) since.
import type { Database } from './database.ts';
import { statement } from './database.ts';
import type { TrigramSample } from './traffic-search.ts';

const SAMPLE_SIZE = 1000;
// Bounds the memory of the bit sets (128 bytes each); a search of ordinary terms needs a few dozen.
const MAX_BITSETS = 10_000;

interface Sample {
  texts: string[];
  maxId: number;
  holders: Map<string, Uint32Array>;
}

const samples = new WeakMap<Database, Sample>();

function readSample(db: Database, maxId: number): Sample {
  const step = maxId / SAMPLE_SIZE;
  const ids = new Set<number>();
  for (let i = 0; i < SAMPLE_SIZE; i++) ids.add(Math.max(1, Math.ceil(step * (i + 0.5))));
  const texts = statement<[string], string>(
    db,
    'SELECT search_text FROM traffic WHERE id IN (SELECT value FROM json_each(?))',
  )
    .pluck()
    .all(JSON.stringify([...ids]));
  return { texts, maxId, holders: new Map() };
}

/** The current sample of the traffic table, for chooseTrigrams. */
export function trigramSample(db: Database): TrigramSample {
  const maxId = statement<[], number | null>(db, 'SELECT max(id) FROM traffic').pluck().get() ?? 0;
  let sample = samples.get(db);
  if (sample === undefined || maxId > 2 * sample.maxId || maxId < sample.maxId) {
    sample = readSample(db, maxId);
    samples.set(db, sample);
  }
  const { texts, holders } = sample;
  return {
    size: texts.length,
    population: maxId,
    holders(gram) {
      let bits = holders.get(gram);
      if (bits === undefined) {
        bits = new Uint32Array(Math.ceil(texts.length / 32));
        for (let i = 0; i < texts.length; i++) if ((texts[i] as string).includes(gram)) bits[i >>> 5]! |= 1 << (i & 31);
        if (holders.size >= MAX_BITSETS) holders.clear();
        holders.set(gram, bits);
      }
      return bits;
    },
  };
}
