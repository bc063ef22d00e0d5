// The benchmark's v1 database: a file under the bench folder, seeded once (a million entries take
// a while) and reused by later runs. A marker beside it records the sizes and a fingerprint of the
// v1 schema and seeding code it was made with; when either differs, the file is made anew.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SeedSizes {
  devices: number;
  traffic: number;
  hotTraffic: number;
}

interface Marker {
  sizes: SeedSizes;
  fingerprint: string;
  seededAt: string;
}

const V1_SOURCES = ['../../reference-service/src/storage/migrations/', '../../reference-service/src/seed/'].map((path) => fileURLToPath(new URL(path, import.meta.url)));

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

/** What the stored data depends on: the migrations and the seeding code. */
function fingerprint(): string {
  const hash = createHash('sha256');
  for (const file of V1_SOURCES.flatMap(filesUnder)) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

export class BenchDatabase {
  readonly path: string;
  readonly #marker: string;
  readonly #fingerprint = fingerprint();

  constructor(
    dir: string,
    readonly sizes: SeedSizes,
  ) {
    const name = `v1-${sizes.devices}-devices-${sizes.traffic}-traffic-${sizes.hotTraffic}-hot`;
    this.path = join(dir, `${name}.sqlite`);
    this.#marker = join(dir, `${name}.json`);
  }

  /** True when the file exists and was seeded completely with these sizes and this code. */
  get reusable(): boolean {
    if (!existsSync(this.path) || !existsSync(this.#marker)) return false;
    try {
      const marker = JSON.parse(readFileSync(this.#marker, 'utf8')) as Marker;
      const { devices, traffic, hotTraffic } = marker.sizes;
      return (
        marker.fingerprint === this.#fingerprint &&
        devices === this.sizes.devices &&
        traffic === this.sizes.traffic &&
        hotTraffic === this.sizes.hotTraffic
      );
    } catch {
      return false;
    }
  }

  /** Removes the database (with its WAL files) and its marker: the next start seeds anew. */
  discard(): void {
    for (const path of [this.path, `${this.path}-wal`, `${this.path}-shm`, this.#marker]) rmSync(path, { force: true });
  }

  /**
   * Reads the whole file (and its WAL) once, so that the operating system caches it, as it does
   * for a service that has been running: the figures are then the service's, not the disk's. A
   * reused file may have left the cache since it was seeded: a CSV export of a million entries
   * read them from disk at a tenth of the cached speed. Returns the megabytes read.
   */
  warmPageCache(): number {
    const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
    let bytes = 0;
    for (const path of [this.path, `${this.path}-wal`]) {
      if (!existsSync(path)) continue;
      const fd = openSync(path, 'r');
      try {
        for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) bytes += read;
      } finally {
        closeSync(fd);
      }
    }
    return bytes / 1024 / 1024;
  }

  /** Records that the file holds a complete seeding. */
  markSeeded(): void {
    const marker: Marker = { sizes: this.sizes, fingerprint: this.#fingerprint, seededAt: new Date().toISOString() };
    writeFileSync(this.#marker, `${JSON.stringify(marker, null, 2)}\n`);
  }
}
