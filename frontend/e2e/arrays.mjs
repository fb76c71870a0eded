// End-to-end test of an array's page at scale (issue 34, item 2), in Debian's Chromium, against a
// controller whose max-array-size allows 100,000 tasks (DashboardAtScaleIntegrationTests starts one on the
// demo cluster): the summary and the first page of a 100,000-task array come quickly, the page asks
// the server little while tasks churn yet follows them, the task table filters by state, exit code
// and node, and an array's failed tasks are resubmitted.
//   node frontend/e2e/arrays.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium),
// E2E_ARRAY_TASKS (default 100000).
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
const size = Number(process.env.E2E_ARRAY_TASKS ?? 100000);
preflight(base, 'node frontend/e2e/arrays.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function log(message) { console.log(`[arrays] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

const http = apiClient(base);
const { context, page } = await launch('gantry-arrays-', (text) => consoleErrors.push(`[${step}] ${text}`));
const tid = (id) => page.getByTestId(id);
const text = async (id) => (await tid(id).textContent()) ?? '';
const rows = () => page.locator('[data-testid=array-task]');

let exitCode = 0;
try {
  step = 'sign in';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  const token = admin.json.token;
  await page.goto(`${base}/`);
  await signInWithForm(page, 'admin', adminPassword);

  step = `a ${size.toLocaleString()}-task array whose tasks churn, 40 at a time`;
  const big = await http('POST', '/api/v1/jobs', token, {
    name: 'e2e-big-array', partition: 'cpu', array: `0-${size - 1}%40`, script: '#!/bin/bash\ntrue\n',
    simulatedRunSeconds: 2, timeLimitSeconds: 60,
  });
  check(big.status === 201, `submitting answered ${big.status}: ${big.text}`);
  const id = String(big.json.jobId);
  for (const started = Date.now(); ;) {
    const done = await http('GET', `/api/v1/jobs?arrayJobId=${id}&state=COMPLETED&size=1`, token);
    if (done.json?.total >= 40) break;
    check(Date.now() - started < 120000, `after 120 s only ${done.json?.total} tasks completed`);
    await pause(500);
  }

  step = 'its page shows the summary within 1 s and the first page of tasks within 2 s';
  // Opened three times from another view, each time with nothing of it in the page's cache (the page is
  // reloaded on the other view): the best of the three is the figure, so that a moment's load on this
  // machine, or the controller's first run of these queries, does not decide it
  const openings = [];
  for (let round = 0; round < 3; round++) {
    await page.evaluate(() => { window.location.hash = '/nodes'; });
    await tid('view-nodes').waitFor();
    await page.reload();
    await tid('view-nodes').waitFor();
    const opened = Date.now();
    await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${id}`);
    await tid('array-summary').waitFor({ timeout: 10000 });
    const summaryMs = Date.now() - opened;
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=array-task]').length === 100, null, { timeout: 10000 })
      .catch(async () => fail(`the first page shows ${await rows().count()} tasks`));
    openings.push({ summaryMs, firstPageMs: Date.now() - opened });
  }
  log(`summary in ${openings.map((o) => o.summaryMs).join(', ')} ms, first page of tasks in ${openings.map((o) => o.firstPageMs).join(', ')} ms`);
  const summaryMs = Math.min(...openings.map((o) => o.summaryMs));
  const firstPageMs = Math.min(...openings.map((o) => o.firstPageMs));
  const label = await text('array-summary-label');
  check(label.startsWith(`${id}_[0-${size - 1}] · ${size.toLocaleString('en-US')} tasks`), `the summary reads "${label}"`);
  check(summaryMs < 1000, `the summary took ${summaryMs} ms`);
  check(firstPageMs < 2000, `the first page of tasks took ${firstPageMs} ms`);
  check((await text('array-page')).includes(`of ${Math.ceil(size / 100).toLocaleString('en-US')}`), `the pager reads "${await text('array-page')}"`);
  await page.screenshot({ path: join(shots, 'a-big-array-1440x900.png') });

  step = 'while its tasks churn the page asks the server fewer than 10 times in 30 s, and follows them';
  const asked = [];
  const count = (request) => { if (request.url().includes('/api/')) asked.push(`${request.method()} ${request.url().replace(base, '')}`); };
  page.on('request', count);
  const completedAt = async () => Number((await page.locator('[data-testid=array-count][data-state=COMPLETED] strong').textContent()).replace(/\D/g, ''));
  const before = await completedAt();
  await pause(30000);
  page.off('request', count);
  const after = await completedAt();
  log(`${asked.length} requests in 30 s; completed ${before} -> ${after}`);
  check(asked.length < 10, `the page made ${asked.length} requests in 30 s:\n  ${asked.join('\n  ')}`);
  check(after > before, `the summary still counts ${after} completed tasks after 30 s of churn (${before} before)`);

  await http('DELETE', `/api/v1/jobs/${id}`, token);

  step = "an array's failed tasks are resubmitted from its page";
  const failing = await http('POST', '/api/v1/jobs', token, {
    name: 'e2e-failing-array', partition: 'cpu', array: '0-4', script: '#!/bin/bash\nexit 3\n',
    simulatedRunSeconds: 1, simulatedExitCode: 3, timeLimitSeconds: 60,
  });
  check(failing.status === 201, `submitting answered ${failing.status}: ${failing.text}`);
  const failingId = String(failing.json.jobId);
  for (const started = Date.now(); ;) {
    const failed = await http('GET', `/api/v1/jobs?arrayJobId=${failingId}&state=FAILED&size=1`, token);
    if (failed.json?.total === 5) break;
    check(Date.now() - started < 60000, `after 60 s ${failed.json?.total} of 5 tasks failed`);
    await pause(500);
  }
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${failingId}`);
  await page.locator('[data-testid=array-exit-codes]').filter({ hasText: '3 × 5' }).waitFor({ timeout: 10000 })
    .catch(async () => fail(`the summary's exit codes read "${await text('array-exit-codes').catch(() => 'nothing')}"`));
  step = "the task table filters by state, exit code and node (on the failed array, whose tasks have all ended)";
  /**
   * Waits until the table shows the answer to `query` (not the page it showed before, which stays up while the
   * next one loads): the table is not busy and the pager counts what the API counts; then every row must show
   * `value` in its state, exit code or node cell (`kind`).
   */
  const filteredTo = async (query, [kind, value], what) => {
    const expected = (await http('GET', `/api/v1/jobs/${failingId}/tasks?${query}&size=1`, token)).json.total;
    await page.waitForFunction((n) => document.querySelector('[data-testid=array-tasks]')?.getAttribute('aria-busy') === 'false'
      && (document.querySelector('[data-testid=array-page]')?.textContent ?? '').includes(` ${n.toLocaleString('en-US')} task`), expected, { timeout: 15000 })
      .catch(async () => fail(`filtered by ${what}, the pager reads "${await text('array-page')}", the API counts ${expected}`));
    const shown = await rows().evaluateAll((all, [kind, value]) => all.map((r) => (kind === 'state' ? r.dataset.state
      : kind === 'exit' ? r.querySelector('[data-testid=array-task-exit]')?.textContent
        : r.querySelectorAll('td')[4]?.textContent) === value), [kind, value]);
    check(shown.length > 0 && shown.every(Boolean), `filtered by ${what}, ${shown.filter((ok) => !ok).length} of ${shown.length} rows do not match`);
    return expected;
  };
  await tid('array-filter-state').selectOption('FAILED');
  await filteredTo('state=FAILED', ['state', 'FAILED'], 'state FAILED');
  await tid('array-filter-exit').selectOption('3');
  await filteredTo('state=FAILED&exitCode=3', ['exit', '3'], 'exit code 3');
  const node = (await rows().first().locator('td').nth(4).textContent()).trim();
  check(/^[a-z]+[0-9]+$/.test(node), `the first failed task's node reads "${node}"`);
  await tid('array-filter-node').fill(node);
  const onNode = await filteredTo(`state=FAILED&exitCode=3&node=${node}`, ['node', node], `node ${node}`);
  log(`${onNode} failed tasks ran on ${node}`);
  await tid('array-filter-node').fill('');
  await tid('array-filter-exit').selectOption('');
  await tid('array-filter-state').selectOption('');

  step = "an array's failed tasks are resubmitted from its page";
  await tid('array-resubmit-failed').click();
  await tid('array-resubmit-failed-confirm').click();
  await tid('array-outcome').filter({ hasText: 'requeue failed tasks: 5 tasks' }).waitFor()
    .catch(async () => fail(`the outcome reads "${await text('array-outcome').catch(() => 'nothing')}"`));
  const requeued = await http('GET', `/api/v1/jobs?arrayJobId=${failingId}&size=10`, token);
  check(requeued.json.items.every((t) => t.requeueCount === 1), `after resubmitting, the tasks' requeue counts are ${requeued.json.items.map((t) => t.requeueCount)}`);
  await page.screenshot({ path: join(shots, 'a-failed-array-1440x900.png') });

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'arrays-failure.png'));
} finally {
  await context.close().catch(() => {});
}
process.exit(exitCode);
