// The default landing page on a first run with no internet: headless Chromium (Debian's package)
// opens the gateway's root address with every request that leaves this machine refused. GET /
// leads to the explorer, which works from what the gateway serves (GraphiQL, the demo key in its
// headers) and runs a query; its link to Apollo Sandbox (which needs the internet) is one click away.
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSuite, keepOnMachine, launchChromium } from '../helpers/chromium.ts';
import { parseGatewayConfig } from '../../src/gateway/config.ts';
import { DEMO_ADMIN_KEY, startStack, type Stack } from '../helpers/gateway.ts';

type Doc = { document: { querySelector(selector: string): ({ textContent: string | null; getAttribute(name: string): string | null } & { CodeMirror: { setValue(text: string): void } }) | null } };

describe.runIf(chromiumSuite('Offline landing page test'))('the default landing page, offline, in headless Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let offMachine: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium(); // first: with REQUIRE_CHROMIUM=1 and none, the suite fails before starting anything
    // The settings `npm start` has with none set: LANDING_PAGE's default, the demo key.
    stack = await startStack({ gateway: { ...parseGatewayConfig({}), demoKey: DEMO_ADMIN_KEY } });
    page = await browser.newPage();
    offMachine = await keepOnMachine(page);
    await page.goto(new URL('/', stack.gateway.url).href, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('leads GET / to the explorer on /graphql, rendered from the gateway alone with the demo key', async () => {
    expect(new URL(page.url()).pathname).toBe('/graphql');
    expect(offMachine).toEqual([]);
    const headers = await page.$eval('.graphiql-editor-tool', (element) => element.textContent ?? '');
    expect(headers).toContain(DEMO_ADMIN_KEY);
  });

  it('runs its first query and shows the answer', async () => {
    await page.evaluate(() => {
      (globalThis as unknown as Doc).document.querySelector('.graphiql-query-editor .CodeMirror')!.CodeMirror.setValue('query Offline { protectionDevices(first: 2) { totalCount nodes { deviceId } } }');
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelector('.result-window')?.textContent?.includes('totalCount'), { timeout: 20_000 });
    const answer = await page.$eval('.result-window', (element) => element.textContent ?? '');
    expect(answer).toContain('"deviceId"');
    expect(answer).not.toContain('"errors"');
  });

  it('offers Apollo Sandbox one click away: a link to the Sandbox page on /graphql, which loads from Apollo\'s CDN', async () => {
    const link = await page.$eval('.graphiql-logo a.sandbox-link', (element) => ({ text: element.textContent, href: element.getAttribute('href') }));
    expect(link.text).toBe('Open in Apollo Sandbox');
    expect(link.href).toBe('/graphql?explorer=sandbox');
    const sandbox = await fetch(new URL(link.href!, stack.gateway.url), { headers: { accept: 'text/html' } });
    expect(sandbox.status).toBe(200);
    const html = await sandbox.text();
    expect(html).toContain('https://embeddable-sandbox.cdn.apollographql.com');
    expect(html).toContain('"sharedHeaders":{"X-Service-Token":"demo-admin-key"}');
    expect(offMachine).toEqual([]);
  });
});
