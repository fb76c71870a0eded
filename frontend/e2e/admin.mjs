// End-to-end test of "admins can act" (issue 34): as an ADMIN in the browser, each admin edit round-trips
// through the UI and is read back through the API, and each destructive action asks first in a dialog
// (Cancel and Escape keep everything; only Confirm acts). A QOS is created, two of its limits edited and it
// is deleted, on the way its GrpWall and NoDecay set (a GrpWall that is not whole seconds refused at its field);
// a partition is drained and set UP again; a partition's QOS is chosen from the QOS there are (one deleted
// behind the page's back is refused at its select), read back, and cleared; a MAINT reservation for an account on a partition is
// made, its duration changed and it is deleted; an account's GPU guarantee and borrow and lend limits are
// set; the audit view lists those edits; a bad TRES string shows the server's error at its field and
// stores nothing. DashboardJarIntegrationTests runs it against the demo cluster.
//   node frontend/e2e/admin.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/admin.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
let expectedErrors = []; // console errors a step provokes on purpose (the 400 of a refused value)
function log(message) { console.log(`[admin] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const suffix = Date.now().toString(36);

const http = apiClient(base);
const { context, page } = await launch('gantry-admin-', (text, uncaught) => {
  if (uncaught || !expectedErrors.some((re) => re.test(text))) consoleErrors.push(`[${step}] ${text}`);
});
const tid = (id) => page.getByTestId(id);
const row = (testId, name) => page.locator(`[data-testid=${testId}][data-name="${name}"]`);
const go = async (hash, testId) => {
  await page.evaluate((h) => { window.location.hash = h; }, hash);
  await tid(testId).waitFor();
};
const cleanup = [];
let token = '';

/** Waits until the API's answer at `path` passes `test`; fails with the last answer after 15 s. */
async function stored(path, test, what) {
  let last = null;
  for (const until = Date.now() + 15000; Date.now() < until;) {
    last = await http('GET', path, token);
    if (test(last.json, last.status)) return last.json;
    await page.waitForTimeout(200);
  }
  return fail(`${what}: GET ${path} answers ${last?.status} ${last?.text}`);
}

/**
 * Presses `testId` and checks it asks first: a dialog named by its question, holding the focus; Cancel
 * closes it and `unchanged` (an API check) still holds; so does Escape. Then presses it again and confirms.
 */
async function confirmAfterCancelling(testId, unchanged, shot) {
  const dialog = page.locator(`[data-testid="${testId}-dialog"][role=dialog]`);
  await tid(testId).click();
  await dialog.waitFor();
  check(await dialog.getAttribute('aria-modal') === 'true', 'the confirmation is not a modal dialog');
  check(await dialog.evaluate((d) => d.contains(document.activeElement)), 'the confirmation dialog does not hold the focus');
  const question = await dialog.evaluate((d) => document.getElementById(d.getAttribute('aria-labelledby'))?.textContent ?? '');
  check(question.endsWith('?'), `the dialog's name is "${question}", not a question`);
  await page.screenshot({ path: join(shots, `a-${shot}-confirm-1440x900.png`) });
  await tid(`${testId}-abort`).click();
  await dialog.waitFor({ state: 'detached' });
  await unchanged('after Cancel');
  await tid(testId).click();
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await unchanged('after Escape');
  await tid(testId).click();
  await tid(`${testId}-confirm`).click();
  await dialog.waitFor({ state: 'detached' });
  log(`${shot}: asked "${question}"; Cancel and Escape kept it, Confirm acted`);
}

let exitCode = 0;
try {
  step = 'sign in';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  token = admin.json.token;
  await page.goto(`${base}/`);
  await signInWithForm(page, 'admin', adminPassword);
  await page.evaluate(() => { window.__e2eNoReload = true; });

  step = 'a QOS is created in the browser';
  const qos = `e2eq${suffix}`;
  cleanup.push(() => http('DELETE', `/api/v1/qos/${qos}`, token));
  await go('/admin/qos', 'qos');
  await tid('qos-new').click();
  const create = tid('qos-form');
  await create.getByTestId('qos-field-name').fill(qos);
  await create.getByTestId('qos-field-priority').fill('10');
  await create.getByTestId('qos-field-maxJobsPerUser').fill('5');
  await create.getByTestId('qos-save').click();
  await row('qos-row', qos).waitFor();
  await stored(`/api/v1/qos/${qos}`, (q) => q?.priority === 10 && q?.maxJobsPerUser === 5, 'the new QOS');

  step = "a bad TRES string shows the server's error at its field and stores nothing";
  await tid(`qos-edit-${qos}`).click();
  const editor = tid(`qos-editor-${qos}`);
  await editor.getByTestId('qos-field-priority').fill('20');
  await editor.getByTestId('qos-field-maxTresPerJob').fill('gres/gpu=lots');
  expectedErrors = [/status of 400/];
  await editor.getByTestId('qos-save').click();
  const tresError = tid(`error-qos-${qos}-maxTresPerJob`);
  await tresError.waitFor().catch(async () => fail(`no error beside Max TRES / job; the form shows "${await editor.textContent()}"`));
  const tresText = (await tresError.textContent()) ?? '';
  check(/lots|TRES|number|gres/i.test(tresText), `the error beside Max TRES / job reads "${tresText}"`);
  check(await editor.getByTestId('qos-field-maxTresPerJob').getAttribute('aria-invalid') === 'true', 'the refused field is not marked invalid');
  const untouched = (await http('GET', `/api/v1/qos/${qos}`, token)).json;
  check(untouched.priority === 10 && !untouched.maxTresPerJob, `a refused edit stored something: ${JSON.stringify(untouched)}`);
  await page.screenshot({ path: join(shots, 'a-qos-refused-1440x900.png') });
  expectedErrors = [];
  log(`refused TRES: "${tresText}"`);

  step = 'a GrpWall that is not whole seconds is refused at its field before anything is sent';
  await editor.getByTestId('qos-field-grpWallSeconds').fill('10h');
  await editor.getByTestId('qos-save').click();
  await tid(`error-qos-${qos}-grpWallSeconds`).waitFor();
  check(await editor.getByTestId('qos-field-grpWallSeconds').getAttribute('aria-invalid') === 'true', 'the refused GrpWall is not marked invalid');
  check((await http('GET', `/api/v1/qos/${qos}`, token)).json.grpWallSeconds == null, 'a refused GrpWall was stored');

  step = "two of the QOS's limits, its GrpWall and its NoDecay flag are edited and stored";
  await editor.getByTestId('qos-field-maxTresPerJob').fill('gres/gpu=4');
  await editor.getByTestId('qos-field-maxJobsPerUser').fill('7');
  await editor.getByTestId('qos-field-grpWallSeconds').fill('36000');
  await editor.getByTestId('qos-field-noDecay').check();
  await editor.getByTestId('qos-save').click();
  await editor.waitFor({ state: 'detached' });
  const edited = await stored(`/api/v1/qos/${qos}`, (q) => q?.maxJobsPerUser === 7 && q?.maxTresPerJob === 'gres/gpu=4',
    'the edited limits');
  check(edited.priority === 20, `the priority typed with them is ${edited.priority}`);
  check(edited.grpWallSeconds === 36000 && edited.noDecay === true && edited.overPartQos === false,
    `GrpWall and the flags read ${JSON.stringify({ grpWallSeconds: edited.grpWallSeconds, noDecay: edited.noDecay, overPartQos: edited.overPartQos })}`);
  await page.waitForFunction((n) => document.querySelector(`[data-testid=qos-row][data-name="${n}"] [data-testid=qos-max-jobs]`)?.textContent === '7', qos);
  await tid(`qos-details-${qos}`).click();
  const details = (await tid(`qos-detail-${qos}`).textContent()) ?? '';
  check(details.includes('gres/gpu=4') && details.includes('Max TRES-minutes / job'), `the QOS details read "${details}"`);
  check(details.includes('Group wall time (s)36000') && details.includes('No decayyes') && details.includes('Over partition QOSno')
    && details.includes('Group wall used'), `the QOS details lack GrpWall or the flags: "${details}"`);

  step = 'the QOS is deleted once confirmed';
  await confirmAfterCancelling(`qos-delete-${qos}`, async (when) => {
    check((await http('GET', `/api/v1/qos/${qos}`, token)).status === 200, `the QOS is gone ${when}`);
    check(await row('qos-row', qos).count() === 1, `the QOS row is gone ${when}`);
  }, 'qos-delete');
  await row('qos-row', qos).waitFor({ state: 'detached' });
  await stored(`/api/v1/qos/${qos}`, (_, status) => status === 404, 'the deleted QOS');

  step = 'a partition is drained once confirmed, and set UP again';
  await go('/admin/partitions', 'partitions');
  await row('partition-row', 'cpu').waitFor();
  cleanup.push(() => http('PATCH', '/api/v1/partitions/cpu', token, { state: 'UP' }));
  const drain = page.locator('[data-testid="partition-state-cpu-dialog"]');
  await tid('partition-state-cpu').selectOption('DRAIN');
  await drain.waitFor();
  await tid('partition-state-cpu-abort').click();
  await drain.waitFor({ state: 'detached' });
  check((await http('GET', '/api/v1/partitions/cpu', token)).json.state === 'UP', 'choosing DRAIN drained before it was confirmed');
  check(await tid('partition-state-cpu').inputValue() === 'UP', 'the cancelled state is still shown as chosen');
  await tid('partition-state-cpu').selectOption('DRAIN');
  await tid('partition-state-cpu-confirm').click();
  await page.locator('[data-testid=partition-row][data-name=cpu][data-state=DRAIN]').waitFor();
  await stored('/api/v1/partitions/cpu', (p) => p?.state === 'DRAIN', 'the drained partition');
  const shown = (await row('partition-row', 'cpu').textContent()) ?? '';
  check(/OFF|REQUEUE|CANCEL|SUSPEND/.test(shown) && /whole node|\/ CPU|\/ node/.test(shown), `the partition row lacks preempt mode or memory default: "${shown}"`);
  await tid('partition-state-cpu').selectOption('UP');
  check(await page.locator('[role=dialog]').count() === 0, 'setting a partition UP asks first');
  await page.locator('[data-testid=partition-row][data-name=cpu][data-state=UP]').waitFor();
  await stored('/api/v1/partitions/cpu', (p) => p?.state === 'UP', 'the partition set UP again');

  step = "a partition's QOS is chosen from the QOS there are, a vanished one refused at its select, and cleared";
  const partQos = `e2epq${suffix}`;
  const gone = `e2egone${suffix}`;
  for (const name of [partQos, gone]) {
    const made = await http('POST', '/api/v1/qos', token, { name });
    check(made.status === 201, `creating QOS ${name} answered ${made.status}: ${made.text}`);
    cleanup.push(() => http('DELETE', `/api/v1/qos/${name}`, token));
  }
  cleanup.push(() => http('PATCH', '/api/v1/partitions/gpu', token, { qos: '' }));
  await page.reload();
  await tid('view-admin').waitFor();
  await page.evaluate(() => { window.__e2eNoReload = true; });
  await row('partition-row', 'gpu').waitFor();
  const qosSelect = tid('partition-qos-gpu');
  await qosSelect.locator(`option[value="${gone}"]`).waitFor({ state: 'attached' });
  check((await http('DELETE', `/api/v1/qos/${gone}`, token)).status === 204, `deleting QOS ${gone} behind the page failed`);
  expectedErrors = [/status of 400/];
  await qosSelect.selectOption(gone);
  const qosError = tid('error-partition-qos-gpu');
  await qosError.waitFor().catch(async () => fail(`no error beside the QOS of gpu; the row reads "${await row('partition-row', 'gpu').textContent()}"`));
  const qosErrorText = (await qosError.textContent()) ?? '';
  check(qosErrorText.includes(gone), `the error beside the QOS of gpu reads "${qosErrorText}"`);
  check(await qosSelect.getAttribute('aria-invalid') === 'true', 'the refused QOS choice is not marked invalid');
  check((await http('GET', '/api/v1/partitions/gpu', token)).json.qos == null, 'a refused partition QOS was stored');
  expectedErrors = [];
  log(`refused partition QOS: "${qosErrorText}"`);
  await qosSelect.selectOption(partQos);
  await stored('/api/v1/partitions/gpu', (p) => p?.qos === partQos, 'the partition QOS');
  await page.waitForFunction((q) => document.querySelector('[data-testid=partition-row][data-name=gpu] [data-testid=partition-qos]')?.textContent === q, partQos);
  check(await qosError.count() === 0, 'the refusal stays beside the QOS once a good one is stored');
  const gpuPartition = (await http('GET', '/api/v1/partitions/gpu', token)).json;
  const billing = await row('partition-row', 'gpu').getByTestId('partition-billing').textContent();
  check(!!gpuPartition.tresBillingWeights && billing === gpuPartition.tresBillingWeights,
    `the row's billing weights read "${billing}", the API's "${gpuPartition.tresBillingWeights}"`);
  await page.screenshot({ path: join(shots, 'a-partition-qos-1440x900.png') });
  await qosSelect.selectOption('');
  await stored('/api/v1/partitions/gpu', (p) => p != null && p.qos == null, 'the cleared partition QOS');
  await page.waitForFunction(() => document.querySelector('[data-testid=partition-row][data-name=gpu] [data-testid=partition-qos]')?.textContent === '—');

  step = 'a MAINT reservation for an account on a partition is created, shows its flags, and its duration is changed';
  const resv = `e2e-maint-${suffix}`;
  cleanup.push(() => http('DELETE', `/api/v1/reservations/${resv}`, token));
  await go('/admin/reservations', 'reservation-form');
  await tid('reservation-name').fill(resv);
  await tid('reservation-duration').fill('30');
  await tid('reservation-nodeCount').fill('1');
  await tid('reservation-partition').selectOption('cpu');
  await tid('reservation-accounts').fill('root');
  await tid('reservation-flag-MAINT').check();
  await tid('reservation-create').click();
  await row('reservation-row', resv).waitFor();
  const flags = (await row('reservation-row', resv).getByTestId('reservation-flags').textContent()) ?? '';
  check(flags.includes('MAINT'), `the reservation's flags read "${flags}"`);
  const made = await stored(`/api/v1/reservations/${resv}`, (r) => r?.name === resv, 'the new reservation');
  check(made.flags?.includes('MAINT') && made.accounts?.[0] === 'root' && made.partition === 'cpu' && made.nodeCount === 1,
    `the reservation reads ${JSON.stringify(made)}`);
  await tid(`reservation-edit-${resv}`).click();
  const resvEditor = tid(`reservation-editor-${resv}`);
  await resvEditor.getByTestId('edit-resv-duration').fill('90');
  await resvEditor.getByTestId('edit-resv-save').click();
  await resvEditor.waitFor({ state: 'detached' });
  const longer = await stored(`/api/v1/reservations/${resv}`,
    (r) => Date.parse(r?.endTime) - Date.parse(r?.startTime) === 90 * 60_000, 'the reservation 90 minutes long');
  check(longer.startTime === made.startTime && longer.flags?.includes('MAINT'), `changing the duration changed more: ${JSON.stringify(longer)}`);

  step = 'the reservation is deleted once confirmed';
  await confirmAfterCancelling(`reservation-delete-${resv}`, async (when) => {
    check((await http('GET', `/api/v1/reservations/${resv}`, token)).status === 200, `the reservation is gone ${when}`);
  }, 'reservation-delete');
  await row('reservation-row', resv).waitFor({ state: 'detached' });
  await stored(`/api/v1/reservations/${resv}`, (_, status) => status === 404, 'the deleted reservation');

  step = "an account's guarantee and borrow and lend limits are set in its editor";
  const team = `e2eg${suffix}`;
  const account = await http('POST', '/api/v1/accounts', token, { name: team, parent: 'root' });
  check(account.status === 201, `creating account ${team} answered ${account.status}: ${account.text}`);
  cleanup.push(() => http('DELETE', `/api/v1/accounts/${team}`, token));
  await go('/admin/accounts', 'accounts');
  await page.reload();
  await tid('view-admin').waitFor();
  await page.evaluate(() => { window.__e2eNoReload = true; });
  await row('account-row', team).waitFor();
  await tid(`edit-${team}`).click();
  const accountEditor = tid(`account-editor-${team}`);
  await accountEditor.getByTestId('edit-guaranteed-tres').fill('gpus=lots');
  expectedErrors = [/status of 400/];
  await accountEditor.getByTestId('edit-save').click();
  await tid(`error-acct-${team}-guaranteedTres`).waitFor();
  check((await http('GET', `/api/v1/accounts/${team}`, token)).json.guaranteedTres == null, 'a refused guarantee was stored');
  expectedErrors = [];
  await accountEditor.getByTestId('edit-guaranteed-tres').fill('gres/gpu=8');
  await accountEditor.getByTestId('edit-max-borrow-tres').fill('gres/gpu=4');
  await accountEditor.getByTestId('edit-max-lend-tres').fill('gres/gpu=2');
  await accountEditor.getByTestId('edit-save').click();
  await accountEditor.waitFor({ state: 'detached' });
  await stored(`/api/v1/accounts/${team}`, (a) => a?.guaranteedTres === 'gres/gpu=8' && a?.maxBorrowTres === 'gres/gpu=4'
    && a?.maxLendTres === 'gres/gpu=2', 'the guarantee and limits');
  await page.waitForFunction((t) => document.querySelector(`[data-testid=account-row][data-name="${t}"] [data-testid=row-guarantee]`)?.textContent === 'gres/gpu=8', team);
  const borrowLend = await row('account-row', team).getByTestId('row-borrow-lend').textContent();
  check(borrowLend === 'gres/gpu=4 / gres/gpu=2', `the row's borrow / lend reads "${borrowLend}"`);

  step = 'the audit view lists those edits';
  await go('/admin/audit', 'audit');
  const entries = [['qos', qos, 'create'], ['qos', qos, 'update'], ['qos', qos, 'delete'], ['partition', 'cpu', 'update'],
    ['partition', 'gpu', 'update'], ['reservation', resv, 'create'], ['reservation', resv, 'update'], ['reservation', resv, 'delete'], ['account', team, 'update']];
  for (const [entity, key, action] of entries) {
    await page.locator(`[data-testid=audit-row][data-entity="${entity}"][data-key="${key}"][data-action="${action}"]`).first()
      .waitFor({ timeout: 10000 }).catch(() => fail(`the audit view lists no ${action} of ${entity} ${key}`));
  }
  await tid('audit-entity').selectOption('partition');
  await tid('audit-key').fill('cpu');
  await tid('audit-apply').click();
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('[data-testid=audit-row]')];
    return rows.length === 2 && rows.every((r) => r.dataset.entity === 'partition');
  }).catch(async () => fail(`filtered to partition cpu the view shows ${await tid('audit-row').count()} rows`));
  const newest = (await tid('audit-row').first().getByTestId('audit-changes').textContent()) ?? '';
  check(/state: DRAIN → UP/.test(newest), `the newest partition change reads "${newest}"`);
  await page.screenshot({ path: join(shots, 'a-audit-1440x900.png'), fullPage: true });

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'admin-failure.png'));
} finally {
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  await context.close().catch(() => {});
}
process.exit(exitCode);
