// The run's figures for a person: a table on the terminal, results.json, results.html
// (self-contained: inline SVG charts, no script), and after a full run the table of
// docs/benchmark.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPORT_FORMATS } from './reference-figures.ts';
import { TARGETS, TARGET_LABELS, type BenchResults, type ShapeResult, type TargetCheck, type TargetName } from './results.ts';
import { MEMORY_LIMIT_MB } from './targets.ts';
import { soakText } from './soak.ts';
import { readSettings, warmUpSetting } from './settings.ts';

const f = (value: number | null | undefined, digits = 1): string =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);

function table(rows: string[][], rightAligned: (column: number) => boolean): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows
    .map((row, r) => {
      const line = row.map((cell, c) => (rightAligned(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ');
      return r === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

export function textReport(results: BenchResults): string {
  const out: string[] = [];
  const { cpus, loadAtStart, loadAtEnd } = results.machine;
  out.push(`${cpus} CPUs; load average ${f(loadAtStart, 2)} at the start, ${f(loadAtEnd, 2)} at the end (the run itself loads them)`);
  if (loadAtStart > cpus / 2) out.push('The machine was busy before the run started: absolute figures are noisy, ratios less so.');
  out.push('');
  const rows = [['shape', 'target', 'conc', 'rps', 'p50 ms', 'p99 ms', 'cpu ms/req', 'v1 calls/req', 'non-2xx/err']];
  for (const shape of results.shapes) {
    for (const target of TARGETS) {
      const t = shape.targets[target];
      rows.push([
        target === 'gateway' ? `${shape.id} ${shape.name}` : '',
        TARGET_LABELS[target],
        String(t.load.connections),
        f(t.load.rps, 0),
        f(t.load.latencyMs.p50, 2),
        f(t.load.latencyMs.p99, 2),
        f(t.cpuMsPerRequest, 3),
        f(t.upstreamCallsPerRequest, 2),
        `${t.load.non2xx}/${t.load.errors + t.load.bodyErrors}`,
      ]);
    }
  }
  out.push(table(rows, (c) => c >= 2));
  const closedLoop = results.shapes.filter((shape) => shape.targets.direct.load.runner === 'closed-loop').map((shape) => shape.id);
  if (closedLoop.length) {
    out.push(
      `(direct v1 of shape ${closedLoop.join(', ')}: several v1 calls per request, made by a closed loop of the same concurrency ` +
        `in this process, in the gateway's order: the list page, then the per-device pages in parallel)`,
    );
  }

  out.push('', 'Ratios (gateway / pass-through, gateway / direct v1):');
  const ratioRows = [['shape', 'rps gw/pt', 'rps gw/v1', 'p50 gw/pt', 'p50 gw/v1', 'p99 gw/pt', 'p99 gw/v1', 'same data', 'same calls', 'gw RSS MB']];
  for (const s of results.shapes) {
    const r = s.ratios;
    ratioRows.push([
      `${s.id} ${s.name}`,
      f(r.rpsGatewayToPassthrough, 2),
      f(r.rpsGatewayToDirect, 2),
      f(r.p50GatewayToPassthrough, 2),
      f(r.p50GatewayToDirect, 2),
      f(r.p99GatewayToPassthrough, 2),
      f(r.p99GatewayToDirect, 2),
      s.verification.sameData ? 'yes' : 'NO',
      s.verification.sameCalls && s.verification.duplicateCalls.length === 0 ? 'yes' : 'NO',
      f(s.gatewayRssAfterMB),
    ]);
  }
  out.push(table(ratioRows, (c) => c >= 1));

  for (const s of results.shapes) {
    const v = s.verification;
    if (v.sameCalls && v.duplicateCalls.length === 0) continue;
    out.push('', `Shape ${s.id} (${s.name}): the gateway's v1 calls differ from the pass-through's:`);
    if (v.duplicateCalls.length) out.push(`  repeated by the gateway: ${v.duplicateCalls.join(', ')}`);
    if (v.extraCalls.length) out.push(`  made by the gateway only: ${v.extraCalls.join(', ')}`);
    if (v.missingCalls.length) out.push(`  made by the pass-through only: ${v.missingCalls.join(', ')}`);
  }

  const m = results.memory;
  out.push(
    '',
    `Gateway memory (RSS): start ${f(m.gatewayStartMB)} MB, peak under the GraphQL load ${f(m.gatewayLoadPeakMB)} MB, ` +
      `peak over the whole run ${f(m.gatewayPeakMB)} MB, end ${f(m.gatewayEndMB)} MB; ` +
      `after each shape: ${results.shapes.map((s) => `${s.id}: ${f(s.gatewayRssAfterMB)}`).join(', ')}`,
  );
  if (m.soak.rounds.length) {
    out.push(
      `Sustained load (all shapes mixed, ${m.soak.rounds.length} rounds): mean RSS per round ${m.soak.rounds.map((r) => f(r.meanMB)).join(', ')} MB, ` +
        `peak ${m.soak.rounds.map((r) => f(r.peakMB)).join(', ')} MB, ` +
        `${m.soak.rounds.map((r) => f(r.rps, 0)).join(', ')} rps`,
    );
  }

  const start = results.startup;
  if (start && 'error' in start) out.push('', `Start to first answered query: not measured (${start.error})`);
  else if (start) {
    out.push(
      '',
      `Start to first answered query (compiled, npm start's settings): median ${f(start.medianMs, 0)} ms of ${start.startsMs.map((ms) => f(ms, 0)).join(', ')} ms ` +
        `the first start after the build ${f(start.firstStartMs, 0)} ms`,
    );
    if (start.inherited) {
      out.push(
        `  the same starts with the machine's ${start.inherited.variables.join(', ')} as well (node 20 reads it before any JavaScript): ` +
          `median ${f(start.inherited.medianMs, 0)} ms of ${start.inherited.startsMs.map((ms) => f(ms, 0)).join(', ')} ms`,
      );
    }
  }

  const ref = results.reference;
  if (ref && 'error' in ref) out.push('', `Reference service figures: not measured (${ref.error})`);
  else if (ref) {
    out.push(
      '',
      `Reference service, device ${ref.deviceId} with ${ref.entries.toLocaleString('en')} entries:`,
      `  two-term search, page of 10: p50 ${f(ref.search.p50Ms, 2)} ms, p99 ${f(ref.search.p99Ms, 2)} ms ` +
        `(${ref.search.samples} requests one at a time over ${ref.search.terms}; median ${ref.search.medianMatches.toLocaleString('en')} matches)`,
      ...EXPORT_FORMATS.map((format) => {
        const e = ref.exports[format];
        return (
          `  ${format.toUpperCase()} export: ${e.rows.toLocaleString('en')} rows, ${f(e.megabytes)} MB in ${f(e.seconds, 2)} s = ` +
          `${f(e.rowsPerSecond, 0)} rows/s; service RSS ${f(e.rssBeforeMB)} -> peak ${f(e.rssPeakMB)} MB (growth ${f(e.peakGrowthMB)} MB)`
        );
      }),
    );
  }

  const tail = results.tail;
  if (tail && 'error' in tail) out.push('', `Live traffic tail: not measured (${tail.error})`);
  else if (tail) {
    out.push(
      '',
      `Live traffic tail: ${tail.subscribers} subscribers over ${tail.devices} devices, ${tail.entriesLogged} entries logged, ${tail.deliveries} deliveries: ` +
        `latency p50 ${f(tail.latencyP50Ms, 0)} ms, p99 ${f(tail.latencyP99Ms, 0)} ms; ${f(tail.pollsPerSecond)} upstream polls/s; ` +
        `gateway RSS ${f(tail.rssBeforeMB)} -> peak ${f(tail.rssPeakMB)} MB`,
    );
  }

  const soak = results.soak;
  if (soak && 'error' in soak) out.push('', `Soak: not run to its end (${soak.error})`);
  else if (soak) out.push('', 'Soak, every surface at once:', ...soakText(soak).map((line) => `  ${line}`));

  const exported = results.export;
  if (exported && 'error' in exported) out.push('', `Export through the gateway: not measured (${exported.error})`);
  else if (exported) {
    out.push(
      '',
      `Export, CSV of device ${exported.deviceId}: ${exported.rows.toLocaleString('en')} rows, ${f(exported.megabytes)} MB; ` +
        `direct ${f(exported.direct.rowsPerSecond, 0)} rows/s (${f(exported.direct.seconds, 2)} s), through the gateway ${f(exported.gateway.rowsPerSecond, 0)} rows/s ` +
        `(${f(exported.gateway.seconds, 2)} s) = ${f(exported.ratio, 2)} x; gateway RSS ${f(exported.gatewayRssBeforeMB)} -> peak ${f(exported.gatewayRssPeakMB)} MB`,
    );
  }

  const production = results.production;
  if (production && 'error' in production) out.push('', `Production settings: not measured (${production.error})`);
  else if (production) {
    out.push('', 'Production settings, each against the default gateway (cache: against the pass-through), rps side by side:');
    for (const row of production.variants) {
      out.push(
        `  ${row.variant.padEnd(11)} shape ${row.shapeId} ${row.shapeName.padEnd(16)} ${f(row.variantRps, 0)} vs ${f(row.baselineRps, 0)} rps = ${f(row.ratio, 2)} x` +
          (row.cpuRatio === null ? '' : `; gateway CPU ${f(row.variantCpuMs!, 3)} vs ${f(row.baselineCpuMs!, 3)} ms/request`),
      );
    }
  }

  const replicas = results.replicas;
  if (replicas && 'error' in replicas) out.push('', `Replicas: not measured (${replicas.error})`);
  else if (replicas) {
    out.push(
      '',
      `Replicas: GATEWAY_WORKERS=2 with Redis (throttling on) against one worker; a Redis round trip p50 ${f(replicas.redisRoundTripMs.p50, 3)} ms, p99 ${f(replicas.redisRoundTripMs.p99, 3)} ms:`,
      ...replicas.shapes.map(
        (row) =>
          `  shape ${row.shapeId} ${row.shapeName.padEnd(16)} ${f(row.twoWorkersRps, 0)} vs ${f(row.oneWorkerRps, 0)} rps = ${f(row.ratio, 2)} x; p50 ${f(row.twoWorkersP50Ms, 1)} vs ${f(row.oneWorkerP50Ms, 1)} ms`,
      ),
    );
  }

  out.push('', 'Targets:');
  for (const check of results.checks) out.push(`  [${check.met ? 'met' : 'NOT MET'}] ${check.name}: ${check.detail}`);
  return out.join('\n');
}

// --- HTML -----------------------------------------------------------------------------------------

const COLORS: Record<TargetName, string> = { gateway: '#d9480f', passthrough: '#1c7ed6', direct: '#2b8a3e' };

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

/** One small panel: three bars (one per target), with its own scale. */
function barPanel(title: string, values: Record<TargetName, number>, unit: string): string {
  const width = 220;
  const height = 190;
  const top = 34;
  const bottom = 150;
  const max = niceMax(Math.max(...TARGETS.map((t) => values[t])));
  const bars = TARGETS.map((target, i) => {
    const value = values[target];
    const h = Number.isFinite(value) ? ((bottom - top) * value) / max : 0;
    const x = 30 + i * 62;
    const label = Number.isFinite(value) ? (value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2)) : '–';
    return (
      `<rect x="${x}" y="${bottom - h}" width="44" height="${h}" fill="${COLORS[target]}"><title>${TARGET_LABELS[target]}: ${label} ${unit}</title></rect>` +
      `<text x="${x + 22}" y="${bottom - h - 4}" text-anchor="middle" font-size="11">${label}</text>` +
      `<text x="${x + 22}" y="${bottom + 14}" text-anchor="middle" font-size="10">${TARGET_LABELS[target]}</text>`
    );
  }).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${escape(title)}">` +
    `<text x="${width / 2}" y="16" text-anchor="middle" font-size="12" font-weight="bold">${escape(title)}</text>` +
    `<line x1="24" y1="${bottom}" x2="${width - 6}" y2="${bottom}" stroke="#555"/>` +
    `<text x="4" y="${top + 4}" font-size="9" fill="#666">${max} ${unit}</text>` +
    `<line x1="24" y1="${top}" x2="${width - 6}" y2="${top}" stroke="#ddd" stroke-dasharray="3 3"/>` +
    bars +
    `</svg>`
  );
}

function metricRow(shapes: ShapeResult[], heading: string, unit: string, pick: (shape: ShapeResult, target: TargetName) => number): string {
  const panels = shapes.map((s) => {
    const values = Object.fromEntries(TARGETS.map((t) => [t, pick(s, t)])) as Record<TargetName, number>;
    return barPanel(`${s.id}. ${s.name}`, values, unit);
  });
  return `<h2>${escape(heading)}</h2><div class="row">${panels.join('')}</div>`;
}

function memoryChart(results: BenchResults): string {
  const samples = results.memory.samples;
  if (samples.length < 2) return '';
  const width = 900;
  const height = 260;
  const left = 50;
  const right = width - 10;
  const top = 20;
  const bottom = height - 40;
  const tMax = samples.at(-1)!.t || 1;
  const yMax = niceMax(Math.max(MEMORY_LIMIT_MB * 1.1, ...samples.map((s) => s.rssMB)));
  const x = (t: number) => left + ((right - left) * t) / tMax;
  const y = (mb: number) => bottom - ((bottom - top) * mb) / yMax;
  const points = samples.map((s) => `${x(s.t).toFixed(1)},${y(s.rssMB).toFixed(1)}`).join(' ');
  // Shaded: the gateway under load (its warm-ups, measurements and the sustained rounds). Labelled:
  // where each shape (first word of the phase) and the sustained rounds begin.
  const shades: string[] = [];
  const marks: string[] = [];
  samples.forEach((s, i) => {
    const next = samples[i + 1];
    if (next && (s.phase.includes(TARGET_LABELS.gateway) || s.phase.startsWith('soak'))) {
      shades.push(`<rect x="${x(s.t)}" y="${top}" width="${Math.max(0.5, x(next.t) - x(s.t))}" height="${bottom - top}" fill="#fff0e6"/>`);
    }
    const group = s.phase.split(' ')[0]!;
    if (i > 0 && group !== samples[i - 1]!.phase.split(' ')[0]) {
      const label = /^\d+$/.test(group) ? `shape ${group}` : group === 'soak' ? 'sustained' : group;
      marks.push(
        `<line x1="${x(s.t)}" y1="${top}" x2="${x(s.t)}" y2="${bottom}" stroke="#bbb"/>` +
          `<text x="${x(s.t) + 3}" y="${bottom + 13}" font-size="10" fill="#444">${escape(label)}</text>`,
      );
    }
  });
  return (
    `<h2>Gateway RSS during the run</h2><p>Shaded: the gateway under load (warm-ups, measurements, sustained rounds); ` +
    `unshaded spans are the pass-through and direct measurements, when the gateway idles.</p>` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="gateway RSS over time">` +
    shades.join('') +
    marks.join('') +
    `<line x1="${left}" y1="${y(MEMORY_LIMIT_MB)}" x2="${right}" y2="${y(MEMORY_LIMIT_MB)}" stroke="#c92a2a" stroke-dasharray="5 4"/>` +
    `<text x="${right - 4}" y="${y(MEMORY_LIMIT_MB) - 4}" text-anchor="end" font-size="10" fill="#c92a2a">${MEMORY_LIMIT_MB} MB limit</text>` +
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#555"/>` +
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#555"/>` +
    `<text x="${left - 4}" y="${top + 4}" text-anchor="end" font-size="10">${yMax} MB</text>` +
    `<text x="${left - 4}" y="${bottom}" text-anchor="end" font-size="10">0</text>` +
    `<text x="${right}" y="${height - 4}" text-anchor="end" font-size="10">${tMax.toFixed(0)} s</text>` +
    `<polyline points="${points}" fill="none" stroke="${COLORS.gateway}" stroke-width="1.5"/>` +
    `</svg>`
  );
}

/** The page, with `text` (textReport of the same results) as its last section. */
export function htmlReport(results: BenchResults, text: string): string {
  const s = results.shapes;
  const figureRows = s
    .flatMap((shape) =>
      TARGETS.map((target) => {
        const t = shape.targets[target];
        return `<tr><td>${target === 'gateway' ? `${shape.id}. ${escape(shape.title)}` : ''}</td><td>${TARGET_LABELS[target]}</td><td>${t.load.connections}</td><td>${f(t.load.rps, 0)}</td><td>${f(t.load.latencyMs.p50, 2)}</td><td>${f(t.load.latencyMs.p99, 2)}</td><td>${f(t.cpuMsPerRequest, 3)}</td><td>${f(t.upstreamCallsPerRequest, 2)}</td><td>${t.load.non2xx}/${t.load.errors + t.load.bodyErrors}</td></tr>`;
      }),
    )
    .join('');
  const checks = results.checks
    .map((c) => `<li class="${c.met ? 'met' : 'unmet'}"><b>${c.met ? 'met' : 'NOT MET'}</b> ${escape(c.name)}: ${escape(c.detail)}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gateway benchmark ${escape(results.startedAt)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
.row { display: flex; flex-wrap: wrap; gap: 8px; }
svg { background: #fafafa; border: 1px solid #eee; }
table { border-collapse: collapse; } td, th { padding: 2px 8px; text-align: right; } td:first-child, td:nth-child(2) { text-align: left; }
tr:nth-child(3n+1) td { border-top: 1px solid #ddd; }
.met b { color: #2b8a3e; } .unmet b { color: #c92a2a; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
pre { background: #f4f4f4; padding: 12px; overflow-x: auto; font-size: 12px; }
</style></head><body>
<h1>Gateway benchmark</h1>
<p>${escape(results.startedAt)} on ${results.machine.cpus} CPUs, Node ${escape(results.machine.node)}; ${results.settings.durationS} s per measurement (in ${results.settings.rounds} stretches taken in turns across the targets) after ${escape(warmUpSetting(results.settings))}; gateway LOG_LEVEL=${escape(results.settings.gatewayLogLevel)}.
Database: ${results.settings.seed.devices} devices, ${results.settings.seed.traffic} spread traffic entries, ${results.settings.seed.hotTraffic} on device 1.</p>
<p class="legend">${TARGETS.map((t) => `<span style="background:${COLORS[t]}"></span>${TARGET_LABELS[t]}`).join('')}</p>
<h2>Targets</h2><ul>${checks}</ul>
${metricRow(s, 'Requests per second (higher is better)', 'rps', (shape, t) => shape.targets[t].load.rps)}
${metricRow(s, 'Median latency, p50 (lower is better)', 'ms', (shape, t) => shape.targets[t].load.latencyMs.p50)}
${metricRow(s, '99th percentile latency, p99 (lower is better)', 'ms', (shape, t) => shape.targets[t].load.latencyMs.p99)}
${memoryChart(results)}
<h2>Figures</h2>
<table><tr><th>shape</th><th>target</th><th>conc</th><th>rps</th><th>p50 ms</th><th>p99 ms</th><th>cpu ms/req</th><th>v1 calls/req</th><th>non-2xx/err</th></tr>${figureRows}</table>
<h2>Report</h2><pre>${escape(text)}</pre>
</body></html>
`;
}

export function writeReports(results: BenchResults, text: string, dir: string): { json: string; html: string } {
  const json = join(dir, 'results.json');
  const html = join(dir, 'results.html');
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(html, htmlReport(results, text));
  return { json, html };
}

// --- docs/benchmark.md ----------------------------------------------------------------------------
// The document's figures are the last full run's: after one, what lies between its two markers is
// replaced by this run's table. A run with any knob changed (a quick look at two shapes, the smoke
// test's tiny database) leaves it alone, so that it never shows figures taken otherwise than its
// method says.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BENCHMARK_DOC = join(REPO, 'docs', 'benchmark.md');
export const TABLE_START = '<!-- bench:table:start -->';
export const TABLE_END = '<!-- bench:table:end -->';
/** How the document's figures are taken: the command, every knob at its default. */
const COMMAND = 'npm run bench';

/** The knobs a full run leaves at their defaults, by the variables that set them. */
const FULL_RUN_KNOBS: Readonly<Record<string, keyof BenchResults['settings']>> = {
  BENCH_DURATION: 'durationS',
  BENCH_WARMUP: 'warmupS',
  BENCH_WARMUP_MAX: 'warmupMaxS',
  BENCH_ROUNDS: 'rounds',
  BENCH_CONNECTIONS: 'connections',
  BENCH_SHAPES: 'shapes',
  BENCH_SOAK_ROUNDS: 'soakRounds',
  BENCH_SOAK_S: 'soakS',
  BENCH_ONLY: 'only',
  'BENCH_DEVICES/TRAFFIC/HOT_TRAFFIC': 'seed',
  BENCH_GATEWAY_LOG_LEVEL: 'gatewayLogLevel',
  BENCH_GATEWAY_LOG_FILE: 'gatewayLogFile',
  BENCH_GATEWAY_PROFILE: 'gatewayProfile',
  BENCH_GATEWAY_NODE_FLAGS: 'gatewayNodeFlags',
  BENCH_SEARCHES: 'searches',
  BENCH_REFERENCE: 'reference',
  BENCH_EXPORT: 'export',
  BENCH_TAIL: 'tail',
  BENCH_PRODUCTION: 'production',
  BENCH_REPLICAS: 'replicas',
  BENCH_STARTUP: 'startup',
};

/** The knobs this run set away from their defaults, by variable: none for a full run. */
export function changedKnobs(settings: BenchResults['settings']): string[] {
  const defaults = readSettings({});
  return Object.entries(FULL_RUN_KNOBS)
    .filter(([, field]) => JSON.stringify(settings[field]) !== JSON.stringify(defaults[field]))
    .map(([name]) => name);
}

const whole = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : Math.round(value).toLocaleString('en-US');

const both = (a: string, b: string): string => (a === '–' && b === '–' ? '–' : `${a} / ${b}`);

/** A check's verdict, and its bound as its name states it (`>= 0.5`, `<= 250`), for the table. */
function verdict(check: TargetCheck | undefined): { target: string; met: string } {
  if (!check) return { target: '', met: '' };
  const bound = /(>=|<=) ([\d.,]+)/.exec(check.name);
  return { target: bound ? `${bound[1] === '>=' ? '≥' : '≤'} ${bound[2]}` : '', met: check.met ? 'met' : '**not met**' };
}

/** The markdown between the markers: the run's date and command, one table, the other targets. */
export function benchmarkTable(results: BenchResults): string {
  // Each check is shown once: those the table shows are taken out, the rest listed under it.
  const rest = [...results.checks];
  const take = (match: (name: string) => boolean): TargetCheck | undefined => {
    const index = rest.findIndex((check) => match(check.name));
    return index < 0 ? undefined : rest.splice(index, 1)[0];
  };
  const { cpus, node, platform, loadAtStart, loadAtEnd } = results.machine;
  const minutes = (Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60_000;
  const met = results.checks.filter((check) => check.met).length;
  const rows: string[] = [
    '| Measure | Gateway | Pass-through | Direct v1 | Gateway / pass-through | Target | |',
    '|---|---|---|---|---|---|---|',
  ];
  const row = (cells: string[]) => rows.push(`| ${cells.join(' | ')} |`);
  for (const shape of results.shapes) {
    const { gateway, passthrough, direct } = shape.targets;
    const label = `${shape.id} ${shape.name}`;
    const rps = verdict(take((name) => name.startsWith(`shape ${shape.id} (`) && name.includes('gateway rps')));
    row([`${label}: requests/s`, whole(gateway.load.rps), whole(passthrough.load.rps), whole(direct.load.rps), f(shape.ratios.rpsGatewayToPassthrough, 2), rps.target, rps.met]);
    const p50 = verdict(take((name) => name.startsWith(`shape ${shape.id} (`) && name.includes('gateway p50')));
    const latency = (t: (typeof shape.targets)[TargetName]) => both(f(t.load.latencyMs.p50), f(t.load.latencyMs.p99));
    row([
      `${label}: latency p50 / p99, ms`,
      latency(gateway),
      latency(passthrough),
      latency(direct),
      both(f(shape.ratios.p50GatewayToPassthrough, 2), f(shape.ratios.p99GatewayToPassthrough, 2)),
      p50.target && `p50 ${p50.target}`,
      p50.met,
    ]);
    const cpuRatio = gateway.cpuMsPerRequest !== null && passthrough.cpuMsPerRequest ? gateway.cpuMsPerRequest / passthrough.cpuMsPerRequest : null;
    row([`${label}: CPU per request, ms`, f(gateway.cpuMsPerRequest, 3), f(passthrough.cpuMsPerRequest, 3), '–', f(cpuRatio, 2), '', '']);
  }
  const m = results.memory;
  const peak = verdict(take((name) => name.startsWith('gateway memory <=')));
  row(['gateway peak RSS under the GraphQL load, MB', f(m.gatewayLoadPeakMB), '', '', '', peak.target, peak.met]);
  const flat = verdict(take((name) => name.startsWith('gateway memory flat')));
  row([
    `gateway mean RSS a round of sustained mixed load, MB`,
    m.soak.rounds.length ? m.soak.rounds.map((round) => f(round.meanMB)).join(', ') : 'not measured',
    '',
    '',
    '',
    'flat',
    flat.met,
  ]);
  row(['gateway peak RSS over the whole run (tail and exports too), MB', f(m.gatewayPeakMB), '', '', '', '', '']);
  const start = results.startup;
  if (start) {
    const startup = verdict(take((name) => name.startsWith('start to first answered query')));
    const figure =
      'error' in start
        ? `not measured (${start.error})`
        : `${f(start.medianMs, 0)} (${f(Math.min(...start.startsMs), 0)} to ${f(Math.max(...start.startsMs), 0)})`;
    const starts = 'error' in start ? '' : ` of ${start.startsMs.length}`;
    row([`start to first answered query, median${starts}, ms`, figure, '', '', '', startup.target, startup.met]);
  }
  return [
    `Recorded ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC by \`${COMMAND}\` (every knob at its default; ` +
      `${f(minutes, 0)} min) on ${cpus} CPUs, Node ${node}, ${platform}; load average ${f(loadAtStart, 2)} at the start, ` +
      `${f(loadAtEnd, 2)} at the end. **${met} of ${results.checks.length} targets met.**`,
    '',
    ...rows,
    '',
    'The other targets of the run:',
    '',
    ...rest.map((check) => `- ${check.met ? 'met' : '**not met**'}: ${check.name}: ${check.detail}`),
  ].join('\n');
}

/** After a full run, replaces the table of docs/benchmark.md; says in one line what it did. */
export function updateBenchmarkDoc(results: BenchResults, path = BENCHMARK_DOC): string {
  const shown = relative(REPO, path);
  const changed = changedKnobs(results.settings);
  if (changed.length > 0) return `${shown} left as it is: it holds a full run's figures, and this run set ${changed.join(', ')}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return `${shown} not found: no table rewritten`;
  }
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) return `${shown} has no ${TABLE_START} … ${TABLE_END}: no table rewritten`;
  writeFileSync(path, `${text.slice(0, start + TABLE_START.length)}\n${benchmarkTable(results)}\n${text.slice(end)}`);
  return `Rewrote the figures of ${shown}`;
}
