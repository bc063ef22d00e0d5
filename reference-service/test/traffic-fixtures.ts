// Shared by the traffic suites: crafted entries, the contract's rules written out plainly (to
// compute what the service should answer), and reading what the database holds.
import type { TrafficLogEntry } from '../src/records.ts';
import type { NewTrafficEntry } from '../src/storage/traffic.ts';
import { dbRows, TEST_STORE, type TestV1 } from './helpers/v1.ts';

// PostgreSQL's text cannot hold a NUL character: on that store the crafted text goes without it.
const storable = (text: string): string => (TEST_STORE === 'postgres' ? text.replaceAll('\u0000', '') : text);

/** Entries that the demo data lacks: CSV-hostile text, ties, case, terms only in `extra`. */
export function craftedEntries(deviceId: number): NewTrafficEntry[] {
  const base = { device_id: deviceId, dest_ip: '10.0.0.1', dest_port: '8443' };
  return [
    {
      ...base,
      date_time: '2026-01-01T00:00:00Z',
      type: 'custom,type',
      src_ip: '10.9.8.7',
      log_message: 'comma, "quoted" text,\nnew line\r\nCRLF and a lone CR\r end',
      extra: { action: 'BLOCK', note: 'zebracorn-42', 'odd, "key"': 'va,l"ue\nwith\r\nbreaks' },
    },
    {
      ...base,
      date_time: '2026-11-20T12:00:00Z',
      type: 'tie',
      src_ip: '10.9.8.1',
      log_message: 'first of three entries with the same date_time',
      extra: { action: 'Log' },
    },
    {
      ...base,
      date_time: '2026-11-20T12:00:00Z',
      type: 'tie',
      src_ip: '10.9.8.2',
      log_message: 'second of three entries with the same date_time',
      extra: { action: 'challenge' },
    },
    {
      ...base,
      date_time: '2026-11-20T12:00:00Z',
      type: 'tie',
      src_ip: '10.9.8.3',
      log_message: 'third of three entries with the same date_time',
      extra: {},
    },
    {
      ...base,
      date_time: '2026-03-15T09:30:00Z',
      type: 'unicode',
      src_ip: '10.9.8.4',
      log_message: 'Élève à l’ÉCOLE: naïve façade',
      extra: { action: 'ALLOW', city: 'Zürich' },
    },
    {
      ...base,
      date_time: '2026-03-15T09:30:01Z',
      type: 'wildcards',
      src_ip: '10.9.8.5',
      log_message: 'percent % and under_score and back\\slash',
      extra: { action: 'log', pattern: '100%_done' },
    },
    {
      ...base,
      date_time: '2026-03-15T09:30:02Z',
      type: 'controls',
      src_ip: '10.9.8.6',
      log_message: storable('tab\there \u0001ctl \u007fdel \u2028sep \\ backslash 😀 emoji\u0000nul'),
      extra: { action: 'allow', 'ctl\u0002key': 'v\u0003\t😀' },
    },
  ];
}

/** A device's entries as the database holds them, in id order. */
export async function storedEntries(service: TestV1, deviceId: number): Promise<TrafficLogEntry[]> {
  const rows = await dbRows<Omit<TrafficLogEntry, 'extra'> & { extra: string }>(
    service,
    `SELECT id, date_time, type, src_ip, dest_ip, dest_port, log_message, extra FROM traffic WHERE device_id = ? ORDER BY id`,
    [deviceId],
  );
  return rows.map((row) => ({ ...row, extra: JSON.parse(row.extra) as Record<string, string> }));
}

/** The search rule of the contract, written out plainly. */
export function matchesSearch(entry: TrafficLogEntry, search: string): boolean {
  const terms = search.split(/\s+/).filter((t) => t !== '');
  const fields = [entry.log_message, entry.src_ip, entry.dest_ip, entry.dest_port, entry.type, ...Object.values(entry.extra)].map(
    (f) => f.toLowerCase(),
  );
  return terms.every((term) => fields.some((field) => field.includes(term.toLowerCase())));
}

export function matchesActions(entry: TrafficLogEntry, actions: string[]): boolean {
  const action = entry.extra.action;
  return action !== undefined && actions.some((a) => a.toLowerCase() === action.toLowerCase());
}

export const TRAFFIC_ORDER_FIELDS = ['date_time', 'id', 'type', 'src_ip', 'dest_ip', 'dest_port'] as const;

/** The order of the contract: by the field, ties by id in the same direction. */
export function sortEntries(entries: TrafficLogEntry[], field: (typeof TRAFFIC_ORDER_FIELDS)[number], descending: boolean) {
  const sign = descending ? -1 : 1;
  return [...entries].sort((a, b) => {
    const va = a[field];
    const vb = b[field];
    if (va !== vb) return (va < vb ? -1 : 1) * sign;
    return (a.id - b.id) * sign;
  });
}
