// End-to-end test of bulk drain/resume by hostlist and of the undo window (issue 34): an OPERATOR in the
// browser drains three nodes by hostlist in one go (asked first; Cancel keeps them), sees them drained
// through the API, clicks Undo and sees them back; an unknown name in the hostlist changes nothing; a
// pending job is held and the hold undone; cancelling a job says it cannot be undone.
// DashboardJarIntegrationTests runs it against the demo cluster.
//   node frontend/e2e/bulk.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/bulk.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function log(message) { console.log(`[bulk] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const suffix = Date.now().toString(36);
const NODES = ['cpu006', 'cpu007', 'cpu008'];
const DRAINED = ['DRAINED', 'DRAINING'];

const http = apiClient(base);
const { context, page } = await launch('gantry-bulk-', (text, uncaught) => {
  // The unknown-node drain is answered 404 on purpose: the browser logs the failed request.
  if (uncaught || !/404/.test(text)) consoleErrors.push(`[${step}] ${text}`);
});
const tid = (id) => page.getByTestId(id);
const jobs = [];
let token = '';

/** Waits until every node's state (read through the API) passes `test`. */
async function awaitNodes(names, test, what) {
  let states = [];
  for (const until = Date.now() + 30000; Date.now() < until;) {
    states = await Promise.all(names.map(async (n) => (await http('GET', `/api/v1/nodes/${n}`, token)).json.state));
    if (states.every(test)) return states;
    await pause(200);
  }
  return fail(`${names.join(',')} are ${states.join(',')}, not ${what}, after 30 s`);
}

let exitCode = 0;
try {
  step = 'sign in as an operator';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  token = admin.json.token;
  const operator = `op${suffix}`;
  const created = await http('POST', '/api/v1/users', token,
    { username: operator, password: 'operator-password', roles: ['OPERATOR'], defaultAccount: 'root' });
  check(created.status === 201, `creating the operator answered ${created.status}: ${created.text}`);
  await awaitNodes(NODES, (s) => s === 'IDLE', 'IDLE');
  await page.goto(`${base}/`);
  await signInWithForm(page, operator, 'operator-password');

  step = 'the listed nodes fill the hostlist';
  await page.evaluate(() => { window.location.hash = '/nodes?q=cpu00'; });
  await tid('bulk-nodes').waitFor();
  await page.locator('[data-testid=node-row][data-node=cpu008]').waitFor();
  await tid('bulk-use-listed').click();
  const listed = await tid('bulk-hostlist').inputValue();
  check(listed === 'cpu[001-008]', `"Use the listed" filled "${listed}", not cpu[001-008]`);

  step = 'draining a hostlist asks first, and Cancel keeps the nodes';
  await tid('bulk-hostlist').fill('cpu[006-008]');
  await tid('bulk-reason').fill(`PDU swap ${suffix}`);
  await tid('bulk-drain').click();
  const dialog = tid('bulk-dialog');
  await dialog.waitFor();
  const title = (await dialog.locator('h2').textContent()) ?? '';
  check(title === 'Drain 3 nodes?', `the dialog asks "${title}"`);
  const which = (await tid('bulk-confirm-nodes').textContent()) ?? '';
  check(which === 'cpu[006-008]', `the dialog names "${which}", not cpu[006-008]`);
  await page.screenshot({ path: join(shots, 'bulk-confirm-1440x900.png') });
  await tid('bulk-abort').click();
  await dialog.waitFor({ state: 'detached' });
  await pause(500); // nothing should happen: give a wrongly sent request the time to land before reading
  await awaitNodes(NODES, (s) => s === 'IDLE', 'still IDLE after Cancel');

  step = 'an unknown name in the hostlist drains none of them';
  await tid('bulk-hostlist').fill('cpu[007-008],nope01');
  await tid('bulk-drain').click();
  await tid('bulk-confirm').click();
  await tid('bulk-error').waitFor();
  const refused = (await tid('bulk-error').textContent()) ?? '';
  check(refused.includes('nope01'), `the error reads "${refused}", not naming nope01`);
  await awaitNodes(NODES, (s) => s === 'IDLE', 'IDLE after the refused drain');

  step = 'draining three nodes in one go, then Undo resumes them';
  await tid('bulk-hostlist').fill('cpu[006-008]');
  await tid('bulk-drain').click();
  await tid('bulk-confirm').click();
  await page.locator('[data-testid=undo-status][data-phase=offered]').waitFor();
  const offered = (await tid('undo-message').textContent()) ?? '';
  check(offered === 'Drained 3 nodes (cpu[006-008]).', `the undo offer reads "${offered}"`);
  check(await tid('undo-status').getAttribute('role') === 'status', 'the undo offer is not a status region');
  await awaitNodes(NODES, (s) => DRAINED.includes(s), 'drained');
  for (const n of NODES) {
    const reason = (await http('GET', `/api/v1/nodes/${n}`, token)).json.reason;
    check(reason === `PDU swap ${suffix}`, `${n}'s reason is "${reason}"`);
  }
  await page.locator('[data-testid=node-row][data-node=cpu007][data-state=DRAINED], [data-testid=node-row][data-node=cpu007][data-state=DRAINING]').waitFor();
  await page.screenshot({ path: join(shots, 'bulk-undo-1440x900.png') });
  await tid('undo-button').focus(); // a plain button: keyboard users reach it and press Enter
  await page.keyboard.press('Enter');
  await page.locator('[data-testid=undo-status][data-phase=undone]').waitFor();
  await awaitNodes(NODES, (s) => s === 'IDLE', 'IDLE after Undo');
  log(`drained and resumed ${NODES.join(',')}`);

  step = 'holding a pending job, then Undo releases it';
  const begin = new Date(Date.now() + 3 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const submitted = await http('POST', '/api/v1/jobs', token, { script: '#!/bin/bash\ntrue\n', name: `bulk-hold-${suffix}`,
    partition: 'cpu', beginTime: begin, timeLimitSeconds: 600 });
  check(submitted.status === 201, `submitting answered ${submitted.status}: ${submitted.text}`);
  const id = String(submitted.json.jobId);
  jobs.push(id);
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${id}`);
  await tid('job-hold').click();
  await page.locator('[data-testid=undo-status][data-phase=offered]').waitFor();
  const held = (await tid('undo-message').textContent()) ?? '';
  check(held === `Held job ${id}.`, `the undo offer reads "${held}"`);
  const heldJob = (await http('GET', `/api/v1/jobs/${id}`, token)).json;
  check(/Held/.test(heldJob.reason ?? ''), `job ${id} is ${heldJob.state} for ${heldJob.reason}, not held`);
  await tid('undo-button').click();
  await page.locator('[data-testid=undo-status][data-phase=undone]').waitFor();
  const released = (await http('GET', `/api/v1/jobs/${id}`, token)).json;
  check(released.state === 'PENDING' && !/Held/.test(released.reason ?? ''), `after Undo job ${id} is ${released.state} for ${released.reason}`);
  await tid('job-hold').waitFor();

  step = 'cancelling a job says it cannot be undone';
  await tid('job-cancel').click();
  const cancelDialog = tid('job-cancel-dialog');
  await cancelDialog.waitFor();
  const warning = (await cancelDialog.textContent()) ?? '';
  check(/cannot be undone/.test(warning), `the cancel dialog reads "${warning}"`);
  await page.keyboard.press('Escape');
  await cancelDialog.waitFor({ state: 'detached' });
  check((await http('GET', `/api/v1/jobs/${id}`, token)).json.state === 'PENDING', `job ${id} is no longer PENDING after Escape`);

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'bulk-failure.png'));
} finally {
  for (const id of jobs.reverse()) await http('DELETE', `/api/v1/jobs/${id}`, token).catch(() => {});
  for (const n of NODES) await http('PATCH', `/api/v1/nodes/${n}`, token, { state: 'RESUME' }).catch(() => {}); // 409 when not drained
  await context.close().catch(() => {});
}
process.exit(exitCode);
