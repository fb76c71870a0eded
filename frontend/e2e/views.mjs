// End-to-end test of the dashboard's second round of views (issue 17), in Debian's Chromium:
// lists sorted and paged by the server (200 jobs), an array as one thing, why-pending in words,
// and every view at both widths with axe-core's WCAG 2.1 A/AA and best-practice rules, at phone width
// with no horizontal overflow and no clipped text, and a title of its own.
//   node frontend/e2e/views.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
// Exits 0 when every step passed, 1 on a failed step, 2 when Chromium is missing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/views.mjs <baseUrl> [screenshotDir]', shots);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const suffix = Date.now().toString(36);
let step = 'start';
const consoleErrors = [];
let expectedErrors = []; // console errors a step provokes on purpose (the 401 of a revoked token)
function log(message) { console.log(`[views] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }

const http = apiClient(base);

const { context, page } = await launch('gantry-views-', (text, uncaught) => {
  if (uncaught || !expectedErrors.some((re) => re.test(text))) consoleErrors.push(`[${step}] ${text}`);
});
const tid = (id) => page.getByTestId(id);
const go = (hash) => page.evaluate((h) => { window.location.hash = h; }, hash);

/**
 * The view as a phone shows it (390x844): nothing wider than the screen, no text clipped, the page title
 * its own, and axe-core finds no WCAG 2.1 AA or best-practice violation at either size; then a screenshot
 * at both sizes.
 */
/** Waits until the view shows no "Loading …" line and the browser has laid it out (two frames). */
async function settled() {
  await page.waitForFunction(() => ![...document.querySelectorAll('p[aria-live=polite]')]
    .some((p) => p.textContent?.startsWith('Loading')), null, { timeout: 10000 })
    .catch(() => fail('the view is still loading after 10 s'));
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

async function checkView(name, title) {
  await page.waitForFunction((t) => document.title === `${t} · Gantry`, title, { timeout: 5000 })
    .catch(async () => fail(`the ${name} view's title is "${await page.title()}", expected "${title} · Gantry"`));
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await settled();
    if (width < 500) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(overflow <= 1, `the ${name} view is ${overflow}px wider than a ${width}px screen`);
      // A badge cut off by a table that scrolls sideways is as unreadable as a page that overflows.
      const cut = await page.evaluate(() => [...document.querySelectorAll('.badge')]
        .filter((b) => { const r = b.getBoundingClientRect(); return r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1); })
        .map((b) => b.textContent).slice(0, 3));
      check(cut.length === 0, `the ${name} view cuts state badges at ${width}px: ${cut.join(', ')}`);
      // Text cut off by its box (overflow hidden or an ellipsis), measured: none, but what only screen readers get
      const clipped = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => {
        const style = getComputedStyle(e);
        if (e.closest('.sr-only') || !e.textContent?.trim() || (e.children.length > 0 && style.textOverflow !== 'ellipsis')) return false;
        const hides = style.overflowX === 'hidden' || style.overflowX === 'clip' || style.textOverflow === 'ellipsis';
        return hides && e.scrollWidth > e.clientWidth + 1;
      }).map((e) => `${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 40)}"`).slice(0, 5));
      check(clipped.length === 0, `the ${name} view clips text at ${width}px: ${clipped.join(', ')}`);
    }
    const violations = await axe();
    check(violations.length === 0, `axe-core at ${width}px on the ${name} view:\n  ${violations.join('\n  ')}`);
    await page.screenshot({ path: join(shots, `v-${name}-${width}x${height}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** axe-core's WCAG 2.1 A and AA and best-practice rules on the page as it is; each violation with its first elements. */
async function axe() {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`).join(' | ')}`);
  });
}

let exitCode = 0;
const cleanup = [];
try {
  step = 'sign in';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  const token = admin.json.token;
  const submit = async (body) => {
    const r = await http('POST', '/api/v1/jobs', token, { script: '#!/bin/bash\nsrun sleep 300\n', partition: 'cpu', simulatedRunSeconds: 300, timeLimitSeconds: 600, ...body });
    check(r.status === 201, `submitting ${JSON.stringify(body)} answered ${r.status}: ${r.text}`);
    cleanup.push(String(r.json.jobId));
    return String(r.json.jobId);
  };
  await page.goto(`${base}/`);
  await tid('signin-form').waitFor();
  await signInWithForm(page, 'admin', adminPassword);
  await page.evaluate(() => { window.__e2eNoReload = true; });

  step = 'the jobs list sorts and pages 200 jobs on the server';
  const many = `e2e-many-${suffix}`;
  for (let i = 0; i < 200; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, k) => submit({ name: `${many}-${i + k}`, hold: true, nice: (i + k) % 7 })));
  }
  const everyId = async (sort) => {
    const r = await http('GET', `/api/v1/jobs?nameContains=${many}&sort=${sort}&size=1000`, token);
    check(r.status === 200 && r.json.total === 200, `the API lists ${r.json?.total} jobs named ${many}*`);
    return r.json.items.map((j) => String(j.jobId));
  };
  await go(`/jobs?all=1&nameContains=${many.toUpperCase()}&size=50`);
  await tid('view-jobs').waitFor();
  await page.waitForFunction(() => /· 200 jobs/.test(document.querySelector('[data-testid=page-info]')?.textContent ?? ''));
  for (const [header, sort] of [['sort-submitted', '-submit'], ['sort-id', '-id']]) {
    await tid(header).click();
    if (header === 'sort-id') await tid(header).click(); // ascending first, then descending
    else await tid(header).click();
    const key = header.replace('sort-', '');
    await page.waitForFunction((k) => location.hash.includes(`sort=${k}`) && location.hash.includes('dir=desc'), key);
    const expected = await everyId(sort);
    const shown = [];
    for (let p = 0; p < 4; p++) {
      await page.waitForFunction((n) => (document.querySelector('[data-testid=page-info]')?.textContent ?? '').startsWith(`Page ${n} of 4`), p + 1);
      await page.waitForFunction((first) => document.querySelector('[data-testid=job-row]')?.dataset.jobId === first, expected[p * 50]);
      shown.push(...await page.locator('[data-testid=job-row]').evaluateAll((rows) => rows.map((r) => r.dataset.jobId)));
      if (p < 3) await tid('page-next').click();
    }
    check(JSON.stringify(shown) === JSON.stringify(expected), `${sort}: the four pages do not show the server's order`);
    await tid('page-prev').click(); await tid('page-prev').click(); await tid('page-prev').click();
  }
  const newest = await submit({ name: `${many}-newest`, hold: true });
  await page.locator(`[data-testid=job-row][data-job-id="${newest}"]`).waitFor({ timeout: 15000 });
  check(await page.locator('[data-testid=job-row]').first().getAttribute('data-job-id') === newest, 'a new job is not first on page 1 sorted newest first');
  check((await tid('cell-elapsed').count()) > 0 && (await tid('cell-timeLeft').count()) > 0, 'no elapsed or time-left column');
  await checkView('jobs-sorted', 'Jobs');
  await Promise.all(cleanup.splice(0).map((id) => http('DELETE', `/api/v1/jobs/${id}`, token)));

  step = 'node search ignores case';
  await go('/nodes?q=CPU00');
  await tid('view-nodes').waitFor();
  await page.locator('[data-testid=node-row]').first().waitFor();
  check((await page.locator('[data-testid=node-row]').count()) > 0, 'searching CPU00 finds no cpu00* node');
  await checkView('nodes', 'Nodes');

  step = 'an array page sums up its tasks; selected tasks and the whole array are acted on';
  const arrayId = await submit({ name: `e2e-arr-${suffix}`, array: '0-5', hold: true });
  await go('/jobs');
  await go(`/jobs?all=1&nameContains=e2e-arr-${suffix}`);
  await page.locator(`[data-testid=array-row][data-array-id="${arrayId}"]`).waitFor();
  const label = await tid('array-label').first().textContent();
  check(label === `${arrayId}_[0-5] · 6 pending`, `the array row reads "${label}"`);
  await go(`/jobs/${arrayId}`);
  await tid('view-array').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=array-task]').length === 6);
  check((await page.locator('[data-testid=array-count][data-state=PENDING]').textContent()).includes('6'), 'the summary does not count 6 pending');
  await checkView('array', `Job ${arrayId}`);
  await tid(`task-select-${arrayId}_1`).check();
  await tid(`task-select-${arrayId}_2`).check();
  await tid('tasks-release').click();
  await tid('array-outcome').filter({ hasText: 'release selected: 2 tasks' }).waitFor();
  await page.waitForFunction((id) => [1, 2].every((t) => document.querySelector(`[data-testid=array-task][data-task-id="${id}_${t}"]`)?.dataset.state === 'RUNNING'), arrayId, { timeout: 60000 });
  check((await page.locator('[data-testid=array-task][data-state=PENDING]').count()) === 4, 'releasing two tasks touched others');
  await tid('array-cancel').click();
  await tid('array-cancel-confirm').click();
  await tid('array-outcome').filter({ hasText: 'cancel array: 6 tasks' }).waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=array-task]')].every((r) => r.dataset.state === 'CANCELLED'), null, { timeout: 60000 });
  // The summary and the page of tasks are re-read together, but answer apart: the summary may come a moment later.
  await page.waitForFunction(() => document.querySelector('[data-testid=array-count][data-state=CANCELLED]')?.textContent?.includes('6'), null, { timeout: 15000 })
    .catch(async () => fail(`the summary does not count 6 cancelled: ${await page.locator('[data-testid=array-summary], [data-testid=array-count]').allTextContents().catch(() => [])}`));

  step = 'why pending: held, dependency, array task limit and resources, each in its own words';
  const whyOf = async (id, reason) => {
    await go(`/jobs/${id}`);
    await tid('view-job').waitFor();
    await page.locator(`[data-testid=pending-reason][data-reason=${reason}]`).waitFor({ timeout: 30000 });
    const text = await tid('pending-reason').textContent();
    check(!/next cycle|ranks it|plans one once/.test(text), `job ${id} (${reason}) reads "${text}"`);
    return text;
  };
  const held = await submit({ name: `e2e-why-held-${suffix}`, hold: true });
  check((await whyOf(held, 'JobHeldUser')).startsWith('It is held by its owner'), 'the held job is not said to be held');
  await checkView('why-held', `Job ${held}`);
  const dependent = await submit({ name: `e2e-why-dep-${suffix}`, dependency: `afterok:${held}` });
  check((await whyOf(dependent, 'Dependency')).includes(`afterok:${held}`), 'the dependent job does not name its dependency');
  const limited = await submit({ name: `e2e-why-limit-${suffix}`, array: '0-2%1' });
  check((await whyOf(`${limited}_2`, 'JobArrayTaskLimit')).includes('%limit'), 'the array task limit is not explained');
  const whole = { partition: 'gpu', nodes: 16, gpusPerNode: 8 };
  const firstWhole = await submit({ name: `e2e-why-whole-1-${suffix}`, ...whole });
  const second = await submit({ name: `e2e-why-whole-2-${suffix}`, ...whole });
  await go(`/jobs/${second}`);
  await tid('view-job').waitFor();
  await page.locator('[data-testid=pending-reason][data-reason=Resources], [data-testid=pending-reason][data-reason=Priority]').waitFor({ timeout: 30000 });
  const resources = await tid('pending-reason').textContent();
  check(/free nodes|higher priority/.test(resources) && !/next cycle/.test(resources), `the waiting job reads "${resources}"`);
  await checkView('why-resources', `Job ${second}`);

  step = 'why pending follows the scheduler through the event stream, without polling';
  await tid('expected-start').waitFor({ timeout: 30000 });
  const expectedBefore = await tid('expected-start').getAttribute('datetime');
  const reads = [];
  const onRequest = (r) => { if (new URL(r.url()).pathname === `/api/v1/jobs/${second}`) reads.push(Date.now()); };
  page.on('request', onRequest);
  try {
    // Nothing changes: the page (its event stream open) does not ask for the job again, neither
    // every 10 s as it used to nor every 3 s as it does while the stream is down.
    await page.waitForTimeout(11000);
    check(reads.length === 0, `the pending job's page read it ${reads.length} times in 11 s while nothing changed`);
    // The job ahead may run 10 minutes longer: an update of that job, whose event names only it; this
    // one's expected start moves by 10 minutes and its page hears so from the scheduler (REPLANNED).
    const longer = await http('PATCH', `/api/v1/jobs/${firstWhole}`, token, { timeLimitSeconds: 1200 });
    check(longer.status === 200, `raising the first job's time limit answered ${longer.status}: ${longer.text}`);
    await page.waitForFunction((before) => {
      const at = document.querySelector('[data-testid=expected-start]')?.getAttribute('datetime');
      return at && before && Date.parse(at) - Date.parse(before) >= 590_000;
    }, expectedBefore, { timeout: 12000 });
  } finally {
    page.off('request', onRequest);
  }
  await Promise.all(cleanup.splice(0).map((id) => http('DELETE', `/api/v1/jobs/${id}`, token)));

  step = "the accounting view's budgets: a GPU-minute budget, a job burning it, its limit, used and run-out day";
  // 10 GPU-minutes; a 4-GPU job of 2 minutes fits (8). Its burn over the last day lifts the usage, decaying with the
  // 7-day half-life, above 10 once it has run ~15 s: from then on the budget has a run-out day.
  const budgetAccount = `e2e-budget-${suffix}`;
  check((await http('POST', '/api/v1/accounts', token, { name: budgetAccount, parent: 'root' })).status === 201, `creating ${budgetAccount} failed`);
  const budgetAssoc = (await http('GET', `/api/v1/associations?account=${budgetAccount}`, token)).json.items.find((a) => !a.user);
  const budgetSet = await http('PATCH', `/api/v1/associations/${budgetAssoc.id}`, token, { grpTresMins: 'gres/gpu=10' });
  check(budgetSet.status === 200, `setting the budget answered ${budgetSet.status}: ${budgetSet.text}`);
  const joined = await http('POST', '/api/v1/associations', token, { account: budgetAccount, user: 'admin' });
  check(joined.status === 201, `adding admin to ${budgetAccount} answered ${joined.status}: ${joined.text}`);
  const burner = await http('POST', '/api/v1/jobs', token, { name: `e2e-burn-${suffix}`, script: '#!/bin/bash\nsrun sleep 110\n',
    partition: 'gpu', account: budgetAccount, gpus: 4, timeLimitSeconds: 120, simulatedRunSeconds: 110 });
  check(burner.status === 201, `submitting the burning job answered ${burner.status}: ${burner.text}`);
  const burnerId = String(burner.json.jobId);
  await go('/accounting');
  await tid('view-accounting').waitFor();
  const budgetRow = page.locator(`[data-testid=budget-row][data-account="${budgetAccount}"][data-user=""][data-tres="gres/gpu"]`);
  await budgetRow.waitFor({ timeout: 15000 }).catch(() => fail(`no budget row of ${budgetAccount}`));
  check(await budgetRow.getByTestId('budget-limit').textContent() === '10 GPU-min',
    `the budget's limit reads "${await budgetRow.getByTestId('budget-limit').textContent()}"`);
  // Used counts at the next usage accrual (every 30 s); the page asks again every 30 s.
  await page.waitForFunction((a) => {
    const row = document.querySelector(`[data-testid=budget-row][data-account="${a}"][data-user=""][data-tres="gres/gpu"]`);
    return Number(row?.querySelector('[data-testid=budget-used]')?.textContent) > 0
      && /^runs out on [A-Z][a-z]{2} \d{1,2}, \d{4}$/.test(row?.querySelector('[data-testid=budget-runs-out]')?.textContent ?? '');
  }, budgetAccount, { timeout: 75000 }).catch(async () => fail(`the budget row reads "${await budgetRow.textContent()}" after 75 s`));
  const runsOutAt = await budgetRow.getByTestId('budget-runs-out').getAttribute('data-at');
  check(Date.parse(runsOutAt) > Date.now() - 60000, `the budget runs out at ${runsOutAt}, in the past`);
  check(Number(await budgetRow.getByTestId('budget-rate').textContent()) > 0, 'the budget burns nothing a day');

  step = 'every other view at phone width, with axe-core';
  for (const [hash, testId, name, title] of [['/', 'view-overview', 'overview', 'Overview'], ['/submit', 'view-submit', 'submit', 'Submit a job'],
    ['/accounting', 'view-accounting', 'accounting', 'Accounting'], ['/nodes/cpu001', 'view-node', 'node', 'Node cpu001'],
    ['/jobs', 'view-jobs', 'jobs', 'Jobs']]) {
    await go(hash);
    await tid(testId).waitFor();
    await settled();
    await checkView(name, title);
  }

  await http('DELETE', `/api/v1/jobs/${burnerId}`, token);

  step = 'admin views: a reservation is created and deleted';
  await tid('nav-admin').click();
  await tid('view-admin').waitFor();
  const resv = `e2e-resv-${suffix}`;
  await tid('reservation-name').fill(resv);
  await tid('reservation-nodes').fill('cpu008');
  await tid('reservation-duration').fill('30');
  await tid('reservation-users').fill('admin');
  await tid('reservation-create').click();
  await page.locator(`[data-testid=reservation-row][data-name="${resv}"]`).waitFor();
  // On the timeline: it holds its node now, so its bar starts at (or before) the now line and is solid.
  const bar = page.locator(`[data-testid=timeline-bar][data-name="${resv}"]`);
  await bar.waitFor();
  check(await bar.getAttribute('data-active') === 'true', 'the new reservation is not drawn as holding its nodes now');
  const [barBox, nowBox] = [await bar.boundingBox(), await tid('timeline-now').boundingBox()];
  check(barBox && nowBox && barBox.x <= nowBox.x + 3 && barBox.x + barBox.width > nowBox.x + 3,
    `the bar (${JSON.stringify(barBox)}) does not cross the now line (${JSON.stringify(nowBox)})`);
  // A later one (tomorrow, for two hours) lies to the right of now, as long as a twelfth of the first day or so.
  const later = `e2e-later-${suffix}`;
  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString();
  const laterMade = await http('POST', '/api/v1/reservations', token, { name: later, nodes: 'cpu007', startTime: tomorrow, durationSeconds: 7200, users: ['admin'] });
  check(laterMade.status === 201, `creating ${later} answered ${laterMade.status}: ${laterMade.text}`);
  await page.reload();
  await tid('view-admin').waitFor();
  await page.evaluate(() => { window.__e2eNoReload = true; });
  const laterBar = page.locator(`[data-testid=timeline-bar][data-name="${later}"]`);
  await laterBar.waitFor();
  const laterBox = await laterBar.boundingBox();
  const nowAgain = await tid('timeline-now').boundingBox();
  check(await laterBar.getAttribute('data-active') === 'false' && laterBox.x > nowAgain.x + laterBox.width,
    `tomorrow's reservation is not drawn well after now: ${JSON.stringify(laterBox)} vs now ${JSON.stringify(nowAgain)}`);
  const stored = await http('GET', `/api/v1/reservations/${resv}`, token);
  check(stored.status === 200 && stored.json.nodes === 'cpu008', `the reservation reads ${stored.status}: ${stored.text}`);
  await checkView('admin-reservations', 'Reservations');
  await tid(`reservation-delete-${resv}`).click();
  await tid(`reservation-delete-${resv}-confirm`).click();
  await page.locator(`[data-testid=reservation-row][data-name="${resv}"]`).waitFor({ state: 'detached' });
  check((await http('GET', `/api/v1/reservations/${resv}`, token)).status === 404, 'the deleted reservation is still there');
  await page.locator(`[data-testid=timeline-bar][data-name="${resv}"]`).waitFor({ state: 'detached' });
  await http('DELETE', `/api/v1/reservations/${later}`, token);

  step = 'admin views: partitions with their state, QOS';
  await tid('admin-tab-partitions').click();
  await page.locator('[data-testid=partition-row][data-name=gpu] .badge').waitFor();
  await checkView('admin-partitions', 'Partitions');
  await tid('admin-tab-qos').click();
  await tid('qos-row').first().waitFor();
  await checkView('admin-qos', 'QOS');

  step = 'admin views: a user is created, given a role and disabled';
  await tid('admin-tab-users').click();
  const newcomer = `e2e-adm-${suffix}`;
  await tid('user-username').fill(newcomer);
  await tid('user-password').fill('e2e-newcomer-password');
  await tid('user-create').click();
  await page.locator(`[data-testid=user-row][data-name="${newcomer}"]`).waitFor();
  await tid(`user-role-${newcomer}`).selectOption('OPERATOR');
  check((await http('GET', `/api/v1/users/${newcomer}`, token)).json?.roles?.includes('OPERATOR') !== true,
    'choosing a role changed it before it was confirmed');
  await tid(`user-role-${newcomer}-confirm`).click();
  const roleCheck = Date.now() + 15000;
  let roles = [];
  while (Date.now() < roleCheck && !roles.includes('OPERATOR')) {
    roles = (await http('GET', `/api/v1/users/${newcomer}`, token)).json?.roles ?? [];
    if (!roles.includes('OPERATOR')) await page.waitForTimeout(300);
  }
  check(roles.includes('OPERATOR'), `the new user's roles are ${roles}`);
  await tid(`user-enable-${newcomer}`).click();
  check((await http('GET', `/api/v1/users/${newcomer}`, token)).json?.enabled !== false, 'Disable acted before it was confirmed');
  await tid(`user-enable-${newcomer}-confirm`).click();
  await page.locator(`[data-testid=user-row][data-name="${newcomer}"][data-enabled=false]`).waitFor();
  check(await tid('user-enable-admin').isDisabled(), "the admin's own row offers to disable the admin");
  check((await http('GET', `/api/v1/users/${newcomer}`, token)).json?.enabled === false, 'the user is not disabled');
  check((await http('POST', '/api/v1/auth/tokens', null, { username: newcomer, password: 'e2e-newcomer-password' })).status === 401,
    'a disabled user can still sign in');
  await checkView('admin-users', 'Users');

  step = 'admin views: the accounts and associations tree';
  await tid('admin-tab-accounts').click();
  await page.locator('[data-testid=account-row][data-name=root]').waitFor();
  // The associations come in a second answer after the accounts: wait for the users under them.
  await tid('assoc-row').first().waitFor().catch(() => fail('no user association under any account'));
  await checkView('admin-accounts', 'Accounts');

  step = 'admin views: an account and an association are edited, refused values shown at their field';
  const dept = `e2e-dept-${suffix}`;
  const boss = { username: `e2e-boss-${suffix}`, password: 'e2e-boss-password' };
  const member = `e2e-memb-${suffix}`;
  check((await http('POST', '/api/v1/accounts', token, { name: dept, parent: 'root' })).status === 201, `creating account ${dept} failed`);
  for (const who of [boss.username, member]) {
    const made = await http('POST', '/api/v1/users', token, { username: who, password: boss.password, roles: ['USER'], defaultAccount: dept });
    check(made.status === 201, `creating ${who} answered ${made.status}: ${made.text}`);
  }
  const named = await http('PUT', `/api/v1/accounts/${dept}/coordinators`, token, { users: [boss.username] });
  check(named.status === 200, `naming the coordinator answered ${named.status}: ${named.text}`);
  await page.reload();
  await tid('view-admin').waitFor();
  const deptRow = page.locator(`[data-testid=account-row][data-name="${dept}"]`);
  await deptRow.waitFor();
  await tid(`edit-${dept}`).click();
  const editor = tid(`account-editor-${dept}`);
  await editor.getByTestId('edit-shares').fill('0');
  await editor.getByTestId('edit-grp-tres').fill('gres/gpu=lots');
  expectedErrors = [/status of 400/];
  await editor.getByTestId('edit-save').click();
  await tid(`error-acct-${dept}-shares`).waitFor();
  check(/at least 1/.test(await tid(`error-acct-${dept}-shares`).textContent()), `the shares error reads "${await tid(`error-acct-${dept}-shares`).textContent()}"`);
  await editor.getByTestId('edit-shares').fill('5');
  await editor.getByTestId('edit-save').click();
  await tid(`error-acct-${dept}-grpTres`).waitFor();
  check((await tid(`error-acct-${dept}-shares`).count()) === 0, 'the corrected shares still show an error');
  expectedErrors = [];
  await editor.getByTestId('edit-grp-tres').fill('gres/gpu=8');
  await editor.getByTestId('edit-save').click();
  await editor.waitFor({ state: 'detached' });
  await page.waitForFunction((d) => document.querySelector(`[data-testid=account-row][data-name="${d}"] [data-testid=row-shares]`)?.textContent === '5', dept);
  const deptNow = await http('GET', `/api/v1/accounts/${dept}`, token);
  check(deptNow.json?.shares === 5, `the account's shares are ${deptNow.json?.shares}`);
  const ownAssoc = (await http('GET', `/api/v1/associations?account=${dept}&size=1000`, token)).json.items.find((a) => !a.user);
  check(ownAssoc?.grpTres === 'gres/gpu=8', `the account's group TRES is ${ownAssoc?.grpTres}`);
  await tid(`edit-${dept}/${member}`).click();
  const assocEditor = page.locator(`[data-testid="association-editor-${dept}-${member}"]`);
  await assocEditor.getByTestId('edit-max-jobs').fill('four');
  await assocEditor.getByTestId('edit-save').click();
  await assocEditor.locator('.field-error').waitFor();
  await assocEditor.getByTestId('edit-max-jobs').fill('4');
  await assocEditor.getByTestId('edit-save').click();
  await assocEditor.waitFor({ state: 'detached' });
  const memberAssoc = (await http('GET', `/api/v1/associations?account=${dept}&size=1000`, token)).json.items.find((a) => a.user === member);
  check(memberAssoc?.maxJobs === 4, `the member's max jobs are ${memberAssoc?.maxJobs}`);

  step = 'admin views: the audit trail';
  await tid('admin-tab-audit').click();
  await page.locator(`[data-testid=audit-row][data-entity=association]`).first().waitFor();
  await checkView('admin-audit', 'Audit');

  step = "a coordinator sees their account's sub-tree and manages it";
  await tid('sign-out').click();
  await tid('signin-form').waitFor();
  await tid('signin-username').fill(boss.username);
  await tid('signin-password').fill(boss.password);
  await tid('signin-submit').click();
  await tid('view-overview').waitFor();
  await tid('nav-admin').click();
  await tid('view-admin').waitFor();
  check((await page.locator('[data-testid^=admin-tab-]').count()) === 1, 'a coordinator is offered more than the accounts view');
  await page.locator(`[data-testid=account-row][data-name="${dept}"]`).waitFor();
  check((await page.locator('[data-testid=account-row][data-name=root]').count()) === 0, 'a coordinator sees the whole tree');
  check((await tid(`edit-${dept}`).count()) === 0, 'a coordinator is offered to edit their own account');
  check((await tid(`edit-${dept}/${boss.username}`).count()) === 0, 'a coordinator is offered to edit their own association');
  await tid(`edit-${dept}/${member}`).waitFor();
  const team = `e2e-team-${suffix}`;
  await tid('account-name').fill(team);
  await tid('account-shares').fill('3');
  await tid('account-create').click();
  await page.locator(`[data-testid=account-row][data-name="${team}"]`).waitFor();
  await tid('member-user').fill(member);
  await tid('member-account').selectOption(team);
  await tid('member-create').click();
  await page.locator(`[data-testid=assoc-row][data-account="${team}"][data-name="${member}"]`).waitFor();
  await tid(`edit-${team}`).click();
  await tid(`account-editor-${team}`).getByTestId('edit-shares').fill('7');
  await tid(`account-editor-${team}`).getByTestId('edit-save').click();
  await page.waitForFunction((t) => document.querySelector(`[data-testid=account-row][data-name="${t}"] [data-testid=row-shares]`)?.textContent === '7', team);
  const teamNow = await http('GET', `/api/v1/accounts/${team}`, token);
  check(teamNow.json?.parent === dept && teamNow.json?.shares === 7, `the coordinator's sub-account reads ${teamNow.text}`);
  await checkView('admin-coordinator', 'Accounts');
  // In the accounting view they may narrow the fair-share tree to their sub-tree.
  await tid('nav-accounting').click();
  await tid('fairshare-mine').check();
  await page.waitForFunction((accounts) => {
    const rows = [...document.querySelectorAll('[data-testid=fairshare-row]')];
    return rows.length > 0 && rows.every((r) => accounts.includes(r.dataset.account));
  }, [dept, team]).catch(async () => fail(`the narrowed fair-share tree shows ${JSON.stringify(await tid('fairshare-row').evaluateAll((rows) => rows.map((r) => r.dataset.account)))}`));
  await tid('sign-out').click();
  await tid('signin-form').waitFor();
  await tid('signin-username').fill('admin');
  await tid('signin-password').fill(adminPassword);
  await tid('signin-submit').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=whoami-name]')?.textContent === 'admin');

  step = 'the tabs of one browser share the sign-in; sign-out and a revoked token sign them all out';
  const tabUser = { username: `e2e-tabs-${suffix}`, password: 'e2e-tabs-password' };
  const created = await http('POST', '/api/v1/users', token, { ...tabUser, roles: ['USER'], defaultAccount: 'root' });
  check(created.status === 201, `creating ${tabUser.username} answered ${created.status}: ${created.text}`);
  const other = await context.newPage();
  await other.goto(`${base}/#/jobs`);
  await other.getByTestId('view-jobs').waitFor();
  // Its who-am-I answer comes after the view: wait for it rather than read the name at once.
  await other.waitForFunction(() => document.querySelector('[data-testid=whoami-name]')?.textContent === 'admin', null,
    { timeout: 15000 }).catch(() => fail('a new tab is not signed in as admin'));
  await other.getByTestId('sign-out').click();
  await tid('signin-form').waitFor();
  await other.getByTestId('signin-form').waitFor();
  await tid('signin-username').fill(tabUser.username);
  await tid('signin-password').fill(tabUser.password);
  await tid('signin-submit').click();
  await page.waitForFunction((n) => document.querySelector('[data-testid=whoami-name]')?.textContent === n, tabUser.username);
  await other.bringToFront(); // a background tab may run its timers late; the user looks at it now
  await other.waitForFunction((n) => document.querySelector('[data-testid=whoami-name]')?.textContent === n, tabUser.username);
  const revoked = await http('POST', `/api/v1/auth/tokens/revoke?user=${tabUser.username}`, token);
  check(revoked.status === 204, `revoking answered ${revoked.status}: ${revoked.text}`);
  expectedErrors = [/401/];
  await go('/nodes'); // a request with the revoked token: 401
  await tid('signin-form').waitFor({ timeout: 15000 });
  await other.getByTestId('signin-form').waitFor();
  check(await page.evaluate(() => localStorage.getItem('gantry.token')) === null, 'the revoked token is still stored');
  // The server now ends the revoked token's event stream at once, so the dashboard's fallback polls
  // start with it: one of them in flight when the sign-in form shows still comes back 401 after it.
  await other.close();
  await page.waitForTimeout(1500);
  expectedErrors = [];

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log(`all steps passed; screenshots in ${shots}`);
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'views-failure.png'));
} finally {
  await context.close().catch(() => {});
}
process.exit(exitCode);
