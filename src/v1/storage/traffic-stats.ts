// Estimates of how common each trigram is, for choosing which trigrams a search asks the index
// for (see chooseTrigrams). They come from a sample of entries kept in memory: a thousand entries
// spread evenly over the ids, read again when the table has doubled since.
import type { Database } from './database.ts';
import { statement } from './database.ts';

const SAMPLE_SIZE = 1000;
// Bounds the memory of the estimates; a search of ordinary terms needs a few dozen.
const MAX_ESTIMATES = 50_000;

interface Sample {
  texts: string[];
  maxId: number;
  estimates: Map<string, number>;
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
  return { texts, maxId, estimates: new Map() };
}

/** The share of entries (0 to 1) estimated to hold each trigram. */
export function trigramFrequency(db: Database): (gram: string) => number {
  const maxId = statement<[], number | null>(db, 'SELECT max(id) FROM traffic').pluck().get() ?? 0;
  let sample = samples.get(db);
  if (sample === undefined || maxId > 2 * sample.maxId || maxId < sample.maxId) {
    sample = readSample(db, maxId);
    samples.set(db, sample);
  }
  const { texts, estimates } = sample;
  return (gram) => {
    let estimate = estimates.get(gram);
    if (estimate === undefined) {
      let n = 0;
      for (const text of texts) if (text.includes(gram)) n++;
      estimate = texts.length === 0 ? 0 : n / texts.length;
      if (estimates.size >= MAX_ESTIMATES) estimates.clear();
      estimates.set(gram, estimate);
    }
    return estimate;
  };
}
