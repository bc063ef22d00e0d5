// Timestamp formatting for the generators. The traffic generator formats millions of instants, so
// the calendar part is computed once per day and the clock part from a table, not via Date.

/** The fixed "now" of the demo data: traffic ends here and checks are dated just before it. */
export const DEMO_END = new Date('2026-11-20T23:59:59Z');

export const HOUR = 3600;
export const DAY = 86_400;

const PAD2: string[] = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One calendar day in the formats that the log sources print. */
export interface DayFormats {
  /** `2026-11-21` (RFC 3339) */
  iso: string;
  /** `21/Nov/2026` (nginx) */
  clf: string;
  /** `11/21/2026` (Suricata fast.log) */
  us: string;
  /** `Nov 21` (syslog, day padded with a space) */
  syslog: string;
  /** `2026/11/21` (nginx error log, which carries ModSecurity messages) */
  slashed: string;
}

let cachedDay = Number.NaN;
let cachedFormats: DayFormats | undefined;

export function dayFormats(epochSeconds: number): DayFormats {
  const day = Math.floor(epochSeconds / DAY);
  if (day !== cachedDay || cachedFormats === undefined) {
    const iso = new Date(day * DAY * 1000).toISOString().slice(0, 10);
    const y = iso.slice(0, 4);
    const m = iso.slice(5, 7);
    const d = iso.slice(8, 10);
    const mon = MONTHS[Number(m) - 1] as string;
    cachedFormats = {
      iso,
      clf: `${d}/${mon}/${y}`,
      us: `${m}/${d}/${y}`,
      syslog: `${mon} ${d[0] === '0' ? ' ' + d[1] : d}`,
      slashed: `${y}/${m}/${d}`,
    };
    cachedDay = day;
  }
  return cachedFormats;
}

/** `08:15:30` for the time of day of an instant. */
export function clock(epochSeconds: number): string {
  const s = ((epochSeconds % DAY) + DAY) % DAY;
  return `${PAD2[Math.floor(s / HOUR)]}:${PAD2[Math.floor((s % HOUR) / 60)]}:${PAD2[s % 60]}`;
}

/** RFC 3339 UTC with a trailing Z and whole seconds: `2026-11-21T08:15:30Z`. */
export function rfc3339(epochSeconds: number): string {
  return `${dayFormats(epochSeconds).iso}T${clock(epochSeconds)}Z`;
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
