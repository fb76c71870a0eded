// What a load of the dashboard's overview transfers over the wire, signed in, in Debian's Chromium:
// cold (empty browser cache) and on reload (cache warm). Counts every response (assets, API JSON,
// the event stream) as Chromium received it: compressed bodies plus headers.
//   node frontend/e2e/weight.mjs <baseUrl> [username] [password]
// Prints one JSON line {cold, reload, coldByUrl, reloadByUrl}; exits 1 when cold >= 150 KB or
// reload >= 10 KB (issue 17's budget), 2 when Chromium is missing.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const username = process.argv[3] ?? 'admin';
const password = process.argv[4] ?? process.env.E2E_ADMIN_PASSWORD ?? 'admin-test-password';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const COLD_BUDGET = 150 * 1024;
const RELOAD_BUDGET = 10 * 1024;
// After the overview is drawn, what its first round of queries brings in; polling later is not the load.
const SETTLE_MS = 2000;
if (!base) {
  console.error('usage: node frontend/e2e/weight.mjs <baseUrl> [username] [password]');
  process.exit(1);
}
if (!existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath}: apt-get install -y chromium`);
  process.exit(2);
}

const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gantry-weight-')), {
  executablePath, headless: true, viewport: { width: 1440, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
context.setDefaultTimeout(20000);
const page = context.pages()[0] ?? await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');

// Bytes per request: the larger of what loadingFinished reports and what arrived so far (a stream never finishes).
let counting = null;
cdp.on('Network.responseReceived', (e) => {
  if (counting) counting.set(e.requestId, { url: e.response.url, bytes: counting.get(e.requestId)?.bytes ?? 0, fromCache: e.response.fromDiskCache || e.response.fromServiceWorker });
});
cdp.on('Network.dataReceived', (e) => {
  const r = counting?.get(e.requestId);
  if (r) r.bytes += e.encodedDataLength;
});
cdp.on('Network.loadingFinished', (e) => {
  const r = counting?.get(e.requestId);
  if (r) r.bytes = Math.max(r.bytes, e.encodedDataLength);
});

async function measure(action) {
  counting = new Map();
  await action();
  await page.getByTestId('view-overview').waitFor();
  await page.waitForTimeout(SETTLE_MS);
  const seen = [...counting.values()];
  counting = null;
  const byUrl = seen.map((r) => ({ url: r.url.replace(base, ''), bytes: r.bytes })).sort((a, b) => b.bytes - a.bytes);
  return { total: byUrl.reduce((a, r) => a + r.bytes, 0), byUrl };
}

// Sign in once (its page load is not what is measured), then empty the cache and load the overview cold.
await page.goto(`${base}/`);
await page.getByTestId('signin-username').fill(username);
await page.getByTestId('signin-password').fill(password);
await page.getByTestId('signin-submit').click();
await page.getByTestId('view-overview').waitFor();
await page.waitForTimeout(1000);
await cdp.send('Network.clearBrowserCache');
const cold = await measure(() => page.reload());
const reload = await measure(() => page.reload());
await context.close();

console.log(JSON.stringify({ cold: cold.total, reload: reload.total, coldByUrl: cold.byUrl, reloadByUrl: reload.byUrl }));
if (cold.total >= COLD_BUDGET || reload.total >= RELOAD_BUDGET) {
  console.error(`over budget: cold ${cold.total} B (budget ${COLD_BUDGET}), reload ${reload.total} B (budget ${RELOAD_BUDGET})`);
  process.exit(1);
}
