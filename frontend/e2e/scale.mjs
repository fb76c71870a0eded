// The overview's node map at scale, in Debian's Chromium, against a controller running a big
// simulated cluster (DashboardOverviewAtScaleIntegrationTests starts one with 1,000 nodes).
//   node frontend/e2e/scale.mjs <baseUrl> <expectedNodes> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
// Prints how long the map took; fails when not every node is drawn within E2E_MAP_SECONDS
// (default 10: generous, this is a check that it renders, not a benchmark), on a console error,
// or when the view is wider than a phone.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const expected = Number(process.argv[3]);
const shots = resolve(process.argv[4] ?? 'target/screenshots');
const adminPassword = process.env.E2E_ADMIN_PASSWORD ?? 'admin-test-password';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const limitMs = Number(process.env.E2E_MAP_SECONDS ?? 10) * 1000;
if (!base || !expected) {
  console.error('usage: node frontend/e2e/scale.mjs <baseUrl> <expectedNodes> [screenshotDir]');
  process.exit(1);
}
if (!existsSync(executablePath)) {
  console.error(`E2E FAILED: no Chromium at ${executablePath}. Install it with: apt-get install -y chromium`);
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

const consoleErrors = [];
const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gantry-e2e-scale-')), {
  executablePath, headless: true, viewport: { width: 1440, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
context.setDefaultTimeout(30000);
const page = context.pages()[0] ?? await context.newPage();
page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
const tid = (id) => page.getByTestId(id);

let exitCode = 0;
try {
  await page.goto(`${base}/`);
  await tid('signin-username').fill('admin');
  await tid('signin-password').fill(adminPassword);
  const started = Date.now();
  await tid('signin-submit').click();
  await tid('view-overview').waitFor();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=node-cell]').length === n, expected, { timeout: limitMs });
  const tookMs = Date.now() - started;
  console.log(`[e2e-scale] ${expected} node cells drawn ${tookMs} ms after signing in`);
  const counts = await page.evaluate(() => ({
    switches: document.querySelectorAll('[data-testid=map-switch]').length,
    blocks: document.querySelectorAll('[data-testid=map-block]').length,
    dense: document.querySelector('[data-testid=node-map]')?.classList.contains('dense'),
    mapHeight: document.querySelector('[data-testid=node-map]')?.getBoundingClientRect().height ?? 0,
  }));
  console.log(`[e2e-scale] ${counts.blocks} blocks, ${counts.switches} leaf switches, map ${Math.round(counts.mapHeight)} px tall`);
  if (!counts.dense) throw new Error('the map is not in its compact form at this scale');
  if (counts.mapHeight > 1400) throw new Error(`the map is ${Math.round(counts.mapHeight)} px tall at 1440 px wide: not readable at a glance`);
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(300);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 1) throw new Error(`the overview is ${overflow}px wider than a ${width}px screen`);
    await page.screenshot({ path: join(shots, `overview-${expected}-nodes-${width}x${height}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  const listStarted = Date.now();
  await page.evaluate(() => { window.location.hash = '/nodes'; });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=node-row]').length === n, expected, { timeout: limitMs });
  console.log(`[e2e-scale] the nodes list showed ${expected} rows in ${Date.now() - listStarted} ms`);
  await page.screenshot({ path: join(shots, `nodes-${expected}-nodes-1440x900.png`) });
  if (consoleErrors.length) throw new Error(`console errors:\n  ${consoleErrors.join('\n  ')}`);
  console.log('[e2e-scale] passed');
} catch (error) {
  exitCode = 1;
  console.error(`E2E-SCALE FAILED: ${error.message}`);
  await page.screenshot({ path: join(shots, 'failure-scale.png'), fullPage: true }).catch(() => {});
} finally {
  await context.close().catch(() => {});
}
process.exit(exitCode);
