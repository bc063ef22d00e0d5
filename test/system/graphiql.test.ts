// LANDING_PAGE=graphiql in a real browser: headless Chromium (Debian's package) opens the gateway's
// landing page with every request that leaves this machine refused, so the page can only work
// from what the gateway serves. GraphiQL must render with the demo key in its headers, run a query
// written into its editor and show the answer, and show the schema in its docs explorer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSuite, keepOnMachine, launchChromium } from '../helpers/chromium.ts';
import { DEMO_ADMIN_KEY, startStack, type Stack } from '../helpers/gateway.ts';

// Functions passed to page.evaluate run in the browser; this suite compiles without DOM types, so
// they reach `document` through globalThis with the little of its type they use.

describe.runIf(chromiumSuite('GraphiQL browser test'))('LANDING_PAGE=graphiql in headless Chromium, offline', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let offMachine: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'graphiql-'));

  beforeAll(async () => {
    browser = await launchChromium(); // first: with REQUIRE_CHROMIUM=1 and none, the suite fails before starting anything
    // The simulator logs traffic (half of it on device 1) for the subscription case.
    stack = await startStack({ v1: { simulateTraffic: 20 }, gateway: { landingPage: true, landingPageKind: 'graphiql', demoKey: DEMO_ADMIN_KEY } });
    page = await browser.newPage();
    offMachine = await keepOnMachine(page);
    await page.goto(stack.gateway.url, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders from the gateway alone, with the demo key in its headers', async () => {
    expect(offMachine).toEqual([]);
    const headers = await page.$eval('.graphiql-editor-tool', (element) => element.textContent ?? '');
    expect(headers).toContain(DEMO_ADMIN_KEY);
  });

  it('runs a query written into its editor and shows the answer', async () => {
    await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(selector: string): { CodeMirror: { setValue(text: string): void } } } }).document;
      doc.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('query Browsed { protectionDevices(first: 2) { totalCount nodes { deviceId } } }');
    });
    // GraphiQL reads the operation's name from its editor a moment after a change.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('.result-window')?.textContent?.includes('totalCount'),
      { timeout: 20_000 },
    );
    const answer = await page.$eval('.result-window', (element) => element.textContent ?? '');
    expect(answer).toContain('"protectionDevices"');
    expect(answer).toContain('"deviceId"');
    expect(answer).not.toContain('"errors"');
    const screenshot = join(dir, 'graphiql.png');
    await page.screenshot({ path: screenshot });
    const png = readFileSync(screenshot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBeGreaterThan(10_000);
  });

  it('subscribes over graphql-ws with the key of its header editor and shows the entries arriving', async () => {
    await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(selector: string): { CodeMirror: { setValue(text: string): void } } } }).document;
      doc.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('subscription Live { trafficLogEntryAdded(deviceId: "1") { id logMessage } }');
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('.result-window')?.textContent?.includes('trafficLogEntryAdded'),
      { timeout: 20_000 },
    );
    const answer = await page.$eval('.result-window', (element) => element.textContent ?? '');
    expect(answer).toContain('"logMessage"');
    expect(answer).not.toContain('"errors"');
    await page.click('.graphiql-execute-button'); // stops the subscription
  });

  it('shows the schema in its docs explorer', async () => {
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('Query'),
      { timeout: 20_000 },
    );
    const docs = await page.$eval('.graphiql-doc-explorer', (element) => element.textContent ?? '');
    expect(docs).toContain('Subscription');
    expect(offMachine).toEqual([]);
  });
});
