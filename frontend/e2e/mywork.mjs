// End-to-end test of the landing page and the node marks (issue 34, items 3 and 8). A user signs in and
// lands on "My work": a running job, an array as ONE row with its tasks counted by state, and a failure
// of the last 24 hours listed. An admin's jobs list is everyone's. On the nodes table and a node's page,
// a node inside a reservation says which, a maintenance coming says when, a drained node says who
// drained it and when, and a node that failed most of the jobs it got lately is marked failing.
// DashboardJarIntegrationTests runs it against the demo cluster (a data directory of its own).
//   node frontend/e2e/mywork.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/mywork.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function log(message) { console.log(`[mywork] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const suffix = Date.now().toString(36);

const http = apiClient(base);
const { context, page } = await launch('gantry-mywork-', (text) => consoleErrors.push(`[${step}] ${text}`));
const tid = (id) => page.getByTestId(id);
const go = (hash) => page.evaluate((h) => { window.location.hash = h; }, hash);
const jobs = [];
const cleanup = [];
let admin = '';

async function submit(token, body) {
  const answer = await http('POST', '/api/v1/jobs', token, { script: '#!/bin/bash\ntrue\n', timeLimitSeconds: 900, partition: 'cpu', ...body });
  check(answer.status === 201, `submitting ${JSON.stringify(body)} answered ${answer.status}: ${answer.text}`);
  jobs.push(answer.json.jobId);
  return answer.json.jobId;
}

/** Polls GET `path` (as `token`) until `test` holds of its answer; fails naming `what` after 60 s. */
async function awaitApi(path, token, test, what) {
  let last = null;
  for (const until = Date.now() + 60000; Date.now() < until;) {
    last = (await http('GET', path, token)).json;
    if (test(last)) return last;
    await pause(250);
  }
  return fail(`${what} not seen after 60 s: ${JSON.stringify(last).slice(0, 400)}`);
}

const text = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

let exitCode = 0;
try {
  step = 'a user with an account';
  admin = (await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword })).json?.token;
  check(!!admin, 'the admin cannot sign in');
  const user = `mw${suffix}`;
  const password = `mywork-${suffix}-password`;
  const created = await http('POST', '/api/v1/users', admin, { username: user, password, roles: ['USER'] });
  check(created.status === 201, `creating ${user} answered ${created.status}: ${created.text}`);
  const associated = await http('POST', '/api/v1/associations', admin, { account: 'root', user });
  check(associated.status === 201, `the association answered ${associated.status}: ${associated.text}`);
  const token = (await http('POST', '/api/v1/auth/tokens', null, { username: user, password })).json?.token;

  step = "the user's work: a running job, a 6-task array and a failing 8-task array on cpu007";
  const running = await submit(token, { name: `mw-run-${suffix}`, simulatedRunSeconds: 900, nodelist: 'cpu001' });
  const array = await submit(token, { name: `mw-arr-${suffix}`, array: '0-5', simulatedRunSeconds: 900, nodelist: 'cpu002' });
  const failing = await submit(token, { name: `mw-bad-${suffix}`, array: '0-7', simulatedRunSeconds: 1, simulatedExitCode: 3, nodelist: 'cpu007' });
  await awaitApi(`/api/v1/jobs/${running}`, token, (j) => j?.state === 'RUNNING', `job ${running} RUNNING`);
  await awaitApi(`/api/v1/jobs/${failing}/array`, token, (a) => a?.states?.some((s) => s.state === 'FAILED' && s.tasks === 8), `array ${failing} failed`);

  step = 'the user lands on their work';
  await page.goto(`${base}/`);
  await signInWithForm(page, user, password);
  await tid('view-mywork').waitFor();
  const activeRow = (id) => page.locator(`[data-testid=mywork-active] [data-testid=mywork-row][data-job-id="${id}"]`);
  await activeRow(running).and(page.locator('[data-state=RUNNING]')).waitFor({ timeout: 30000 });
  await activeRow(array).waitFor();
  check(await activeRow(array).count() === 1, `array ${array} is not one row`);
  check(await activeRow(array).getAttribute('data-array') === 'true', `array ${array}'s row is no array row`);
  const counts = await text(activeRow(array).getByTestId('mywork-counts'));
  check(/^6 tasks: /.test(counts) && /running|pending/.test(counts), `array ${array}'s row counts "${counts}"`);
  const failure = page.locator(`[data-testid=mywork-failures] [data-testid=mywork-row][data-job-id="${failing}"]`);
  await failure.waitFor();
  check(await failure.count() === 1, `the failed array ${failing} is not one row among the failures`);
  const failed = await text(failure.getByTestId('mywork-counts'));
  check(/^8 of 8 tasks/.test(failed), `the failure row reads "${failed}"`);
  check((await text(tid('mywork-failed'))).includes('8'), 'the failed count is not 8');
  await page.screenshot({ path: join(shots, 'mw-user-landing-1440x900.png') });
  log(`landing: running ${running}, array ${array} "${counts}", failure ${failing} "${failed}"`);

  step = "the user's jobs list shows what runs first";
  await go('/jobs');
  await tid('view-jobs').waitFor();
  await page.locator('[data-testid=job-row], [data-testid=array-row]').first().waitFor();
  const first = page.locator('[data-testid=job-row], [data-testid=array-row]').first();
  const firstId = (await first.getAttribute('data-job-id')) ?? (await first.getAttribute('data-array-id'));
  check([String(running), String(array)].includes(firstId), `the first row of the list is ${firstId}, not a running job`);

  step = 'node marks set up: a reservation, a maintenance coming, a drained node';
  const reservation = `mw-res-${suffix}`;
  const maintenance = `mw-maint-${suffix}`;
  const r1 = await http('POST', '/api/v1/reservations', admin, { name: reservation, nodes: 'cpu005', durationSeconds: 3600, users: ['admin'] });
  check(r1.status === 201, `the reservation answered ${r1.status}: ${r1.text}`);
  cleanup.push(() => http('DELETE', `/api/v1/reservations/${reservation}`, admin));
  const start = new Date(Date.now() + 2 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const r2 = await http('POST', '/api/v1/reservations', admin, { name: maintenance, nodes: 'cpu006', startTime: start, durationSeconds: 3600,
    flags: ['MAINT'], users: ['admin'] });
  check(r2.status === 201, `the maintenance reservation answered ${r2.status}: ${r2.text}`);
  cleanup.push(() => http('DELETE', `/api/v1/reservations/${maintenance}`, admin));
  const drained = await http('PATCH', '/api/v1/nodes/cpu004', admin, { state: 'DRAIN', reason: `bad DIMM ${suffix}` });
  check(drained.status === 200, `draining cpu004 answered ${drained.status}: ${drained.text}`);
  cleanup.push(() => http('PATCH', '/api/v1/nodes/cpu004', admin, { state: 'RESUME' }));

  step = 'an admin lands on all jobs';
  await tid('sign-out').click();
  await tid('signin-username').waitFor();
  await signInWithForm(page, 'admin', adminPassword);
  await tid('view-mywork').waitFor();
  await tid('mywork-all-jobs').waitFor();
  await tid('nav-jobs').click();
  await tid('view-jobs').waitFor();
  check(!(await tid('filter-mine').isChecked()), "the admin's jobs list is filtered to their own jobs");
  await page.locator(`[data-testid=job-row][data-job-id="${running}"]`).waitFor({ timeout: 30000 });
  log(`admin: all jobs, ${await text(tid('page-info'))}`);

  step = 'the nodes table marks the reserved, maintained, drained and failing nodes';
  await go('/nodes');
  await tid('view-nodes').waitFor();
  const mark = (node, kind) => tid(`node-marks-${node}`).getByTestId(`node-mark-${kind}`);
  await mark('cpu005', 'reserved').waitFor({ timeout: 30000 });
  check((await text(mark('cpu005', 'reserved'))).includes(reservation), `cpu005 reads "${await text(mark('cpu005', 'reserved'))}"`);
  const coming = await text(mark('cpu006', 'maintenance'));
  check(coming.includes(maintenance) && /from \S/.test(coming), `cpu006 reads "${coming}"`);
  const by = await text(tid('node-reason-by-cpu004'));
  check(by.startsWith('by admin, ') && /\d/.test(by), `cpu004's reason says "${by}"`);
  const black = await text(mark('cpu007', 'failing'));
  const figure = black.match(/^failing: (\d+) of (\d+) jobs in \d+ min$/);
  check(figure && Number(figure[1]) >= 8 && Number(figure[1]) * 2 >= Number(figure[2]), `cpu007 reads "${black}"`);
  check(await tid('node-marks-cpu008').count() === 0, 'cpu008, neither reserved nor failing, carries a mark');
  await page.screenshot({ path: join(shots, 'mw-nodes-1440x900.png') });
  log(`nodes: cpu004 ${by}; cpu006 ${coming}; cpu007 ${black}`);

  step = "the nodes' pages say the same";
  await go('/nodes/cpu004');
  await tid('node-detail-reason-by').waitFor();
  check((await text(tid('node-detail-reason'))).includes(`bad DIMM ${suffix}`), 'cpu004 shows no reason');
  check((await text(tid('node-detail-reason-by'))).includes('admin'), 'cpu004 does not say who drained it');
  await go('/nodes/cpu005');
  await page.locator('[data-testid=view-node] h1', { hasText: 'cpu005' }).waitFor();
  await page.waitForFunction((r) => document.querySelector('[data-testid=node-detail-reservation]')?.textContent === r, reservation);
  await go('/nodes/cpu007');
  await page.locator('[data-testid=view-node] h1', { hasText: 'cpu007' }).waitFor();
  await tid('node-mark-failing').waitFor();
  check((await text(tid('node-detail-failures'))).startsWith(`${figure[1]} of ${figure[2]} jobs`), `cpu007's page reads "${await text(tid('node-detail-failures'))}"`);
  await page.screenshot({ path: join(shots, 'mw-node-failing-1440x900.png') });

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'mywork-failure.png'));
} finally {
  for (const id of jobs.reverse()) await http('DELETE', `/api/v1/jobs/${id}`, admin).catch(() => {});
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  await context.close().catch(() => {});
}
process.exit(exitCode);
