// Operation 8 with `export`: CSV and NDJSON downloads, their content, streaming and cleanup.
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TrafficLogEntry } from '../src/records.ts';
import { generateDemoData, generateTraffic } from '../src/seed/generate.ts';
import type { NewTrafficEntry } from '../src/storage/traffic.ts';
import { startTestV1, TEST_KEYS, TEST_STORE, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';
import { craftedEntries, matchesActions, matchesSearch, sortEntries, storedEntries } from './traffic-fixtures.ts';

const DEVICE = 4;
let service: TestV1;
let stored: TrafficLogEntry[];

const HEADER = ['id', 'date_time', 'type', 'src_ip', 'dest_ip', 'dest_port', 'log_message', 'extra'];

/**
 * RFC 4180, strictly: records end with CRLF; a field is either bare (no comma, quote, CR or LF)
 * or quoted with its quotes doubled. Anything else throws, so sloppy quoting cannot pass.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
          if (text[i] === '"' || text[i] === '\n') throw new Error(`bare field holds ${JSON.stringify(text[i])} at ${i}`);
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${i}`);
    }
    records.push(record);
  }
  return records;
}

function entryFromCsv(record: string[]): TrafficLogEntry {
  const [id, date_time, type, src_ip, dest_ip, dest_port, log_message, extra] = record as [string, ...string[]];
  return { id: Number(id), date_time, type, src_ip, dest_ip, dest_port, log_message, extra: JSON.parse(extra!) } as TrafficLogEntry;
}

async function download(query: string, deviceId = DEVICE) {
  return v1Request(service, 'GET', `/api/v1/atb/${deviceId}/traffic?${query}`);
}

/** Every entry of a JSON listing, page by page. */
async function listAll(query: string): Promise<TrafficLogEntry[]> {
  const items: TrafficLogEntry[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await download(`${query}&limit=1000&offset=${offset}`);
    items.push(...res.json.data);
    if (offset + 1000 >= res.json.total) return items;
  }
}

beforeAll(async () => {
  service = await startTestV1({ seed: 'demo', seedSizes: { devices: 6, traffic: 2000, hotTraffic: 0 } });
  for (const entry of craftedEntries(DEVICE)) await service.store.insertTraffic(entry);
  stored = await storedEntries(service, DEVICE);
});

afterAll(async () => {
  await service?.close();
});

describe('export=csv', () => {
  it('is every entry, newest first, RFC 4180 quoted, and parses back exactly', async () => {
    const res = await download('export=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="device-${DEVICE}-traffic.csv"`);
    const [header, ...records] = parseCsv(res.body);
    expect(header).toEqual(HEADER);
    expect(records.map(entryFromCsv)).toEqual(sortEntries(stored, 'date_time', true));
    // `extra` is the JSON object text, byte for byte what the JSON listing serves.
    const extras = new Map(stored.map((e) => [e.id, JSON.stringify(e.extra)]));
    for (const record of records) expect(record[7]).toBe(extras.get(Number(record[0])));
  });

  it('quotes every text field, doubling its quotes, so that commas, quotes, CR and LF survive', async () => {
    const res = await download(`export=csv&search=zebracorn`);
    const text = res.body;
    const { device_id: _device, ...crafted } = craftedEntries(DEVICE)[0]!;
    expect(text).toMatch(/\r\n\d+,"2026-01-01T00:00:00Z","custom,type","10\.9\.8\.7",/);
    expect(text).toContain(',"comma, ""quoted"" text,\nnew line\r\nCRLF and a lone CR\r end",');
    const [, record] = parseCsv(text);
    expect(entryFromCsv(record!)).toEqual({ id: expect.any(Number), ...crafted });
    expect(record![6]).toBe(crafted.log_message);
    expect(JSON.parse(record![7]!)).toEqual(crafted.extra);
  });

  it('is only the header row when nothing matches', async () => {
    const res = await download('export=csv&search=no-such-term-anywhere');
    expect(res.status).toBe(200);
    expect(res.body).toBe(`${HEADER.join(',')}\r\n`);
  });
});

describe('export=ndjson', () => {
  it('is one entry a line, each exactly the entry the JSON listing serves', async () => {
    const res = await download('export=ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="device-${DEVICE}-traffic.ndjson"`);
    expect(res.body.endsWith('\n')).toBe(true);
    const lines = res.body.slice(0, -1).split('\n');
    const listed = await listAll('order=-date_time');
    expect(listed).toHaveLength(stored.length);
    expect(lines).toEqual(listed.map((entry) => JSON.stringify(entry)));
  });

  it('is empty when nothing matches', async () => {
    const res = await download('export=ndjson&search=no-such-term-anywhere');
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });
});

describe('export and the list parameters', () => {
  it('ignores limit and offset and keeps the filter and order', async () => {
    const filter = 'search=198.51.100&actions[]=BLOCK&actions=log&order=src_ip';
    const want = sortEntries(
      stored.filter((e) => matchesSearch(e, '198.51.100') && matchesActions(e, ['block', 'log'])),
      'src_ip',
      false,
    );
    expect(want.length).toBeGreaterThan(5);
    const ndjson = await download(`export=ndjson&limit=1&offset=3&${filter}`);
    expect(ndjson.body.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(want);
    const csv = await download(`export=csv&offset=2&${filter}`);
    expect(parseCsv(csv.body).slice(1).map(entryFromCsv)).toEqual(want);
    expect(await listAll(filter)).toEqual(want);
  });

  it('is 400 in the envelope for another export value', async () => {
    for (const value of ['xml', 'CSV', 'json', '']) {
      const res = await download(`export=${value}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(res.json).toEqual({
        error: 1,
        messages: [{ code: 'validation_failed', message: expect.any(String), field: 'export' }],
      });
    }
  });

  it('is 404 for another organization’s device, as the list is', async () => {
    const res = await v1Request(service, 'GET', `/api/v1/atb/${DEVICE}/traffic?export=csv`, { token: TEST_KEYS.org2 });
    expect(res.status).toBe(404);
  });
});

/** A GET whose body the test reads at its own pace. */
function openStream(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'X-Service-Token': TEST_KEYS.admin } }, resolve).on('error', reject).end();
  });
}

function firstChunk(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    res.once('data', (chunk: Buffer) => {
      res.pause();
      resolve(chunk);
    });
  });
}

/** A service with one device holding `count` generated entries. */
async function serviceWithTraffic(count: number, database?: string): Promise<TestV1> {
  const svc = await startTestV1(database === undefined ? {} : { database });
  const [device] = generateDemoData({ devices: 1 }).devices;
  await svc.store.insertDevice(device!);
  await svc.store.bulkInsertTraffic(generateTraffic({ count, deviceIds: [1] }));
  return svc;
}

function newestEntry(): NewTrafficEntry {
  return { ...craftedEntries(1)[1]!, date_time: '2027-01-01T00:00:00Z', log_message: 'written during an export' };
}

describe('streaming', () => {
  it('reads only as fast as the client takes, while the service goes on answering and writing', async () => {
    // Enough rows that the socket buffers fill long before the end. The export reads from a
    // connection of its own (a snapshot of an in-memory database), so a client that stops reading
    // holds its download back and nothing else: writes and reads on the service go on.
    const svc = await serviceWithTraffic(40_000);
    try {
      const res = await openStream(`${svc.url}/api/v1/atb/1/traffic?export=csv`);
      expect(res.statusCode).toBe(200);
      const chunk = await firstChunk(res);
      expect(chunk.toString('utf8')).toMatch(/^id,date_time,type/);
      await new Promise((r) => setTimeout(r, 200));
      // Paused: the download is far from complete (40,000 rows are some megabytes).
      expect(res.complete).toBe(false);
      await svc.store.insertTraffic({ ...newestEntry(), device_id: 1 });
      const during = await v1Request(svc, 'GET', '/api/v1/atb/1/traffic?limit=1');
      expect(during.json.total).toBe(40_001);
      // Read on: the rest arrives, from the snapshot taken when the export began.
      res.resume();
      let text = chunk.toString('utf8');
      for await (const more of res) text += String(more);
      expect(text.trimEnd().split('\n')).toHaveLength(40_001);
    } finally {
      await svc.close();
    }
  });

  it('streams every row of a large export', async () => {
    const svc = await serviceWithTraffic(20_000);
    try {
      const res = await v1Request(svc, 'GET', '/api/v1/atb/1/traffic?export=ndjson&order=id');
      const lines = res.body.trimEnd().split('\n');
      expect(lines).toHaveLength(20_000);
      expect(lines.map((line) => (JSON.parse(line) as TrafficLogEntry).id)).toEqual(
        Array.from({ length: 20_000 }, (_, i) => i + 1),
      );
    } finally {
      await svc.close();
    }
  });

  it('on a database file, reads a snapshot on its own connection while the service writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'v1-export-'));
    // On PostgreSQL: the export's own connection and REPEATABLE READ snapshot.
    const svc = await serviceWithTraffic(30_000, TEST_STORE === 'sqlite' ? join(dir, 'v1.sqlite') : undefined);
    try {
      const res = await openStream(`${svc.url}/api/v1/atb/1/traffic?export=ndjson&order=id`);
      const chunks = [await firstChunk(res)];
      // The service's connection stays free for writes during the export...
      const written = await svc.store.insertTraffic({ ...newestEntry(), device_id: 1 });
      expect(written).toBe(30_001);
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.resume();
      await new Promise((r) => res.on('end', r));
      // ...and the export is the table as it was when it began.
      const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(30_000);
      expect((JSON.parse(lines.at(-1)!) as TrafficLogEntry).id).toBe(30_000);
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
