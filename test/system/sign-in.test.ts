// docs/sign-in.md's single-page app in a real browser: headless Chromium opens a single-page app built
// from examples/sign-in/sign-in.ts, which sends the user to the identity provider (oidc-provider),
// where a person would type a login and consent; back in the app with an authorization code, it
// gets the access token (PKCE), runs a query over HTTP and receives a traffic entry over WebSocket,
// with the token, from a gateway in AUTH_MODE=oidc. The page never sees an upstream key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSuite, keepOnMachine, launchChromium } from '../helpers/chromium.ts';
import { TEST_KEYS } from '../helpers/gateway.ts';
import { startIdentityProvider, type TestIdentityProvider } from '../helpers/identity-provider.ts';
import { startSignedInStack, type SignedInStack } from '../helpers/signed-in.ts';
import { v1Request } from '../helpers/v1.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/sign-in/sign-in.ts', import.meta.url));

/** The app's page: the example's functions, run as a front end would on load. */
const APP = `
import { userManager, signIn, query, subscriptions } from ${JSON.stringify(EXAMPLE)};
const settings = globalThis.SIGN_IN;
const users = userManager(settings);
signIn(users)
  .then(async () => {
    const result = await query(users, settings.gatewayUrl, '{ securityFrameworks(organizationId: "1") { totalCount } }');
    const entry = await new Promise((resolve, reject) => {
      subscriptions(users, settings.gatewayUrl).subscribe(
        { query: 'subscription { trafficLogEntryAdded(deviceId: "' + settings.deviceId + '") { id } }' },
        { next: resolve, error: reject, complete() {} },
      );
    });
    document.body.dataset.result = JSON.stringify({ result, entry, stored: JSON.stringify(sessionStorage) });
  })
  .catch((error) => { document.body.dataset.error = String(error && (error.message || error.reason) || error); });
`;

describe.runIf(chromiumSuite('Sign-in browser test'))('signing in from a single-page app, in headless Chromium', () => {
  let app: Server;
  let appOrigin: string;
  let idp: TestIdentityProvider;
  let stack: SignedInStack;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium(); // first: with REQUIRE_CHROMIUM=1 and none, the suite fails before starting anything
    const bundle = await build({ stdin: { contents: APP, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    const script = bundle.outputFiles[0]!.text;
    let settings = '{}';
    app = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return void res.end(script);
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><body><script>globalThis.SIGN_IN = ${settings};</script><script type="module" src="/app.js"></script></body></html>`);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    idp = await startIdentityProvider({ redirectUris: [`${appOrigin}/callback`], accounts: [{ login: 'alice', organization: '1' }] });
    stack = await startSignedInStack({ idpInstance: idp, env: { CORS_ORIGINS: appOrigin }, v1: { simulateTraffic: 30, seedSizes: { devices: 3, traffic: 20 } } });
    const devices = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500');
    const deviceId = (devices.json.data as { id: number; organization: { id: number } }[]).find((d) => d.organization.id === 1)!.id;
    settings = JSON.stringify({
      authority: idp.issuer,
      clientId: idp.spaClientId,
      audience: idp.audience,
      gatewayUrl: stack.gateway.url,
      scopes: ['frameworks:read', 'traffic:read'],
      deviceId: String(deviceId),
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
    await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  });

  it('signs in through the provider’s login and consent pages, then queries and subscribes with the token', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await keepOnMachine(page); // nothing leaves this machine (the provider's dev pages ask for a web font)
    await page.goto(appOrigin, { waitUntil: 'domcontentloaded' });
    // The provider's login page, as a person sees it.
    await page.waitForSelector('input[name="login"]', { timeout: 30_000 });
    expect(page.url().startsWith(idp.issuer)).toBe(true);
    await page.type('input[name="login"]', 'alice');
    await page.type('input[name="password"]', 'any password');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
    // Its consent page: the app asks for the gateway's scopes.
    await page.waitForSelector('button[type="submit"]', { timeout: 30_000 });
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
    const done = await page.waitForFunction(
      () => (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset.result ?? (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset.error,
      { timeout: 60_000 },
    );
    const outcome = String(await done.jsonValue());
    expect(page.url()).toBe(`${appOrigin}/`);
    const { result, entry, stored } = JSON.parse(outcome) as { result: { data?: unknown; errors?: unknown }; entry: { data?: { trafficLogEntryAdded: { id: string } } }; stored: string };
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ securityFrameworks: { totalCount: expect.any(Number) } });
    expect(entry.data?.trafficLogEntryAdded.id).toMatch(/^\d+$/);
    // The page holds the user's token, never an upstream key; the gateway acted with organization 1's.
    for (const key of Object.values(TEST_KEYS)) expect(stored).not.toContain(key);
    expect(new Set(stack.proxy.calls.map((call) => call.headers['x-service-token']))).toEqual(new Set([TEST_KEYS.org1]));
  });
});
