// End-to-end test of why-pending in the browser for the waits people find hardest to read (issue 34,
// item 4): a job waiting for a maintenance window, one waiting for its account's guarantee to be
// reclaimed, one naming a busy healthy node with -w, and one waiting for its begin time. Each job's page
// must name the reason in its own words. DashboardJarIntegrationTests runs it against the demo cluster.
//   node frontend/e2e/why.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/why.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function log(message) { console.log(`[why] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const suffix = Date.now().toString(36);

const http = apiClient(base);
const { context, page } = await launch('gantry-why-', (text) => consoleErrors.push(`[${step}] ${text}`));
const tid = (id) => page.getByTestId(id);
const jobs = [];
const cleanup = [];
let token = '';

async function submit(body) {
  const answer = await http('POST', '/api/v1/jobs', token, { script: '#!/bin/bash\ntrue\n', timeLimitSeconds: 900, ...body });
  check(answer.status === 201, `submitting ${JSON.stringify(body)} answered ${answer.status}: ${answer.text}`);
  jobs.push(answer.json.jobId);
  return answer.json.jobId;
}

async function awaitJob(id, test, what) {
  let last = null;
  for (const until = Date.now() + 60000; Date.now() < until;) {
    last = (await http('GET', `/api/v1/jobs/${id}`, token)).json;
    if (test(last)) return last;
    await pause(250);
  }
  return fail(`job ${id} is not ${what} after 60 s: ${last?.state} ${last?.reason}`);
}

/** The job's page: its pending reason is `reason`, and the sentence shown says what `words` match. */
async function sentenceOf(id, reason, words, shot) {
  await awaitJob(id, (j) => j.state === 'PENDING' && j.reason === reason, `PENDING for ${reason}`);
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${id}`);
  await page.locator(`[data-testid=pending-reason][data-reason="${reason}"]`).waitFor({ timeout: 30000 })
    .catch(async () => fail(`job ${id}'s page shows no ${reason} reason: "${await tid('pending-reason').textContent().catch(() => 'none')}"`));
  const text = (await tid('pending-reason').textContent()) ?? '';
  check(words.test(text), `job ${id} (${reason}) reads "${text}", which does not match ${words}`);
  check(!/next cycle|ranks it|plans one once/.test(text), `job ${id} (${reason}) reads "${text}"`);
  await page.screenshot({ path: join(shots, `w-${shot}-1440x900.png`) });
  log(`${reason}: ${text}`);
}

let exitCode = 0;
try {
  step = 'sign in';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  token = admin.json.token;
  await page.goto(`${base}/`);
  await signInWithForm(page, 'admin', adminPassword);

  step = 'a job waiting for its begin time names it';
  const begin = new Date(Date.now() + 3 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const later = await submit({ name: `why-begin-${suffix}`, partition: 'cpu', beginTime: begin });
  await sentenceOf(later, 'BeginTime', /begin time, \S/, 'begin');

  step = 'a job that names a busy, healthy node with -w is told the node is busy';
  const blocker = await submit({ name: `why-blocker-${suffix}`, partition: 'cpu', nodelist: 'cpu001', exclusive: true, simulatedRunSeconds: 900 });
  await awaitJob(blocker, (j) => j.state === 'RUNNING', 'RUNNING');
  const named = await submit({ name: `why-w-${suffix}`, partition: 'cpu', nodelist: 'cpu001', simulatedRunSeconds: 60 });
  const namedJob = await awaitJob(named, (j) => j.state === 'PENDING' && j.reason && j.reason !== 'None', 'given a reason');
  await sentenceOf(named, namedJob.reason, /busy/i, 'busy-node');
  const node = (await http('GET', '/api/v1/nodes/cpu001', token)).json;
  check(!['DRAINED', 'DRAINING', 'DOWN'].includes(node.state), `cpu001 is ${node.state}, not a healthy busy node`);

  step = 'a job waiting for a maintenance window says so';
  const window = `why-maint-${suffix}`;
  const reserved = await http('POST', '/api/v1/reservations', token, {
    name: window, nodes: 'cpu[002-008]', durationSeconds: 3600, flags: ['MAINT'], users: ['admin'],
  });
  check(reserved.status === 201, `the maintenance reservation answered ${reserved.status}: ${reserved.text}`);
  cleanup.push(() => http('DELETE', `/api/v1/reservations/${window}`, token));
  const maint = await submit({ name: `why-maint-${suffix}`, partition: 'cpu', nodes: 1, cpus: 1, simulatedRunSeconds: 60 });
  await sentenceOf(maint, 'ReqNodeNotAvail, Reserved for maintenance', /maintenance window/, 'maintenance');

  step = "a job of an account under its guarantee waits for the borrowers' reclaim";
  const lender = `whyl${suffix}`;
  const borrower = `whyb${suffix}`;
  const graceQos = `whyg${suffix}`;
  const created = [
    await http('POST', '/api/v1/qos', token, { name: graceQos, graceSeconds: 600 }),
    await http('POST', '/api/v1/accounts', token, { name: lender, guaranteedTres: 'gres/gpu=64' }),
    await http('POST', '/api/v1/accounts', token, { name: borrower, guaranteedTres: 'gres/gpu=64' }),
    await http('POST', '/api/v1/associations', token, { account: lender, user: 'admin' }),
    await http('POST', '/api/v1/associations', token, { account: borrower, user: 'admin' }),
  ];
  check(created.every((a) => a.status === 201), `setting up the two teams answered ${created.map((a) => `${a.status} ${a.text}`).join('; ')}`);
  cleanup.push(() => http('PATCH', `/api/v1/accounts/${lender}`, token, { guaranteedTres: '' }));
  cleanup.push(() => http('PATCH', `/api/v1/accounts/${borrower}`, token, { guaranteedTres: '' }));
  // The borrower fills all 16 GPU nodes: 8 within its guarantee, 8 on the lender's idle one
  const borrowed = [];
  for (let i = 0; i < 16; i++) {
    borrowed.push(await submit({ name: `why-borrow-${suffix}`, partition: 'gpu', account: borrower, qos: graceQos, nodes: 1,
      gpusPerNode: 8, exclusive: true, requeue: false, simulatedRunSeconds: 900, timeLimitSeconds: 3600 }));
  }
  for (const id of borrowed) await awaitJob(id, (j) => j.state === 'RUNNING', 'RUNNING');
  const owner = await submit({ name: `why-owner-${suffix}`, partition: 'gpu', account: lender, nodes: 1, gpusPerNode: 8,
    simulatedRunSeconds: 60 });
  await sentenceOf(owner, 'WaitingForReclaim', /guaranteed share.*being stopped to give it back/, 'reclaim');

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'why-failure.png'));
} finally {
  for (const id of jobs.reverse()) await http('DELETE', `/api/v1/jobs/${id}`, token).catch(() => {});
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  await context.close().catch(() => {});
}
process.exit(exitCode);
