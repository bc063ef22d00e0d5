// Whether the second search index (the text's UTF-8 in hexadecimal, see
// migrations/002_short_terms.sql) is worth asking for a term. A trigram of hexadecimal stands for
// a character and a half, so the index narrows a rare term (`zq`) to a handful of entries, but a
// term of common characters (`22`, `10.0.0.1`) to most of them, and then every candidate is read
// and checked again at more cost than checking the device's entries straight away. The planner
// cannot tell (pg_trgm estimates a LIKE from its pattern alone), so the service asks the index only
// for a term that a sample of entries shows it narrows: a thousand entries spread evenly over the
// ids, read again when the table has doubled (or shrunk) since.
import type { Queryable } from './records.ts';

const SAMPLE_SIZE = 1000;
// The index is asked for a term when it lets through fewer than a quarter of the device's entries:
// each candidate costs a read of its row and a check of its whole text in hexadecimal.
const NARROWS = 4;

interface Sample {
  hex: string[];
  maxId: number;
}

/** The term's hexadecimal, as the LIKE pattern asks for it. */
export function termHex(term: string): string {
  return Buffer.from(term, 'utf8').toString('hex');
}

/** The trigrams pg_trgm takes of a run of letters and digits (hexadecimal is one). */
function trigrams(hex: string): string[] {
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= hex.length; i++) grams.add(hex.slice(i, i + 3));
  return [...grams];
}

export class HexSample {
  #sample: Sample | undefined;

  async #read(db: Queryable): Promise<Sample> {
    const { rows } = await db.query<{ max: string | null }>('SELECT max(id) AS max FROM traffic');
    const maxId = Number(rows[0]?.max ?? 0);
    const known = this.#sample;
    if (known !== undefined && maxId <= 2 * known.maxId && maxId >= known.maxId) return known;
    const step = maxId / SAMPLE_SIZE;
    const ids = new Set<number>();
    for (let i = 0; i < SAMPLE_SIZE && maxId > 0; i++) ids.add(Math.max(1, Math.ceil(step * (i + 0.5))));
    const texts = await db.query<{ search_text: string }>('SELECT search_text FROM traffic WHERE id = ANY($1::bigint[])', [[...ids]]);
    const sample = { hex: texts.rows.map((row) => termHex(row.search_text)), maxId };
    this.#sample = sample;
    return sample;
  }

  /**
   * The terms (of those given) to ask the hexadecimal index for on a device: each one the sample
   * shows the index narrows to fewer than a quarter of the device's entries.
   */
  async narrowing(db: Queryable, deviceId: number, terms: readonly string[]): Promise<string[]> {
    if (terms.length === 0) return [];
    const sample = await this.#read(db);
    if (sample.hex.length === 0) return [...terms];
    const { rows } = await db.query<{ n: string }>('SELECT coalesce(sum(n), 0) AS n FROM traffic_counts WHERE device_id = $1', [deviceId]);
    const deviceEntries = Number(rows[0]?.n ?? 0);
    return terms.filter((term) => {
      const grams = trigrams(termHex(term));
      const through = sample.hex.filter((text) => grams.every((gram) => text.includes(gram))).length;
      return NARROWS * (through / sample.hex.length) * sample.maxId < deviceEntries;
    });
  }
}
