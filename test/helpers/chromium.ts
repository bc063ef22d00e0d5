// Headless Chromium for the browser suites: Debian's package (or CHROMIUM_PATH), driven through
// puppeteer-core. Where it is not installed a browser suite is skipped with one line saying how to
// install it, unless REQUIRE_CHROMIUM=1 (CI sets it) makes its absence a failure.
import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const chromium = findChromium();
const required = process.env.REQUIRE_CHROMIUM === '1';

/** Whether the suite named `what` runs here (for `describe.runIf`); prints the one line when it is skipped. */
export function chromiumSuite(what: string): boolean {
  if (!chromium && !required) console.warn(`${what} skipped: no Chromium; install it with \`apt-get install -y chromium\`.`);
  return chromium !== undefined || required;
}

/** A headless browser; with REQUIRE_CHROMIUM=1 and no Chromium, the suite's failure saying how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!chromium) throw new Error('REQUIRE_CHROMIUM=1 and no Chromium found: apt-get install -y chromium');
  return puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
}

/**
 * Keeps `page` on this machine: a request to any other host is refused as with no internet.
 * Returns the list the refused addresses are added to, for a suite that says nothing may leave.
 */
export async function keepOnMachine(page: Page): Promise<string[]> {
  const refused: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const { hostname } = new URL(request.url());
    if (request.url().startsWith('data:') || hostname === '127.0.0.1' || hostname === 'localhost') return void request.continue();
    refused.push(request.url());
    void request.abort('internetdisconnected');
  });
  return refused;
}
