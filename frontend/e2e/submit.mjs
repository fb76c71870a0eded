// End-to-end test of the submit form (issue 34, item 5): a user with two associations picks from
// exactly their accounts and QOS; a script with three mistakes on three lines (no #! on line 1, an
// unknown partition on line 2, a bad --time on line 3) shows all three at their lines after ONE click
// of Submit, with one request and no job created; the fixed script's "When would it start?" shows an
// expected start; Submit then lands on the job's page. DashboardJarIntegrationTests runs it against the
// demo cluster.
//   node frontend/e2e/submit.mjs <baseUrl> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const shots = resolve(process.argv[3] ?? 'target/screenshots');
preflight(base, 'node frontend/e2e/submit.mjs <baseUrl> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
let expectedErrors = [];
function log(message) { console.log(`[submit] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }
const suffix = Date.now().toString(36);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const http = apiClient(base);
const { context, page } = await launch('gantry-submit-', (text) => {
  if (!expectedErrors.some((re) => re.test(text))) consoleErrors.push(`[${step}] ${text}`);
});
const tid = (id) => page.getByTestId(id);
const cleanup = [];
const jobs = [];
let token = '';

/** The requests the page sends to create or test a job, as "METHOD path". */
const jobPosts = [];
page.on('request', (r) => {
  const path = new URL(r.url()).pathname;
  if (r.method() === 'POST' && path.startsWith('/api/v1/jobs')) jobPosts.push(`POST ${path}`);
});

/** The options of a picker: their values and labels. */
const optionsOf = (id) => tid(id).locator('option').evaluateAll((os) => os.map((o) => ({ value: o.value, label: o.textContent })));

async function awaitNoBusy() {
  await page.waitForFunction(() => !document.querySelector('[data-testid=submit-button]')?.disabled
    && !document.querySelector('[data-testid=submit-test]')?.disabled);
}

/**
 * The form as it is, at 1440 and 390 px: axe-core's WCAG 2.1 A/AA and best-practice rules find nothing
 * (views.mjs checks the empty form; this, the form with its errors or its estimate), and nothing is wider
 * than a phone's screen; a screenshot at each width.
 */
async function accessibleAtBothWidths(name) {
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate(async () => (await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
    check(violations.length === 0, `axe-core at ${width}px on the form with ${name}:\n  ${violations.join('\n  ')}`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(wide <= 0, `the form with ${name} is ${wide}px wider than the ${width}px screen`);
    await page.screenshot({ path: join(shots, `submit-${name}-${width}x${height}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

let exitCode = 0;
try {
  step = 'a user with two associations';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  token = admin.json.token;
  const user = `sub${suffix}`;
  const password = `pw-${suffix}-long`;
  const [alpha, beta, gold] = [`suba${suffix}`, `subb${suffix}`, `subg${suffix}`];
  const created = [];
  for (const [path, body] of [
    ['/api/v1/qos', { name: gold }],
    ['/api/v1/accounts', { name: alpha }],
    ['/api/v1/accounts', { name: beta }],
    ['/api/v1/users', { username: user, password, roles: ['USER'] }],
    ['/api/v1/associations', { account: alpha, user, qos: ['normal', gold], defaultQos: gold }],
    ['/api/v1/associations', { account: beta, user, qos: ['normal'] }],
  ]) created.push(await http('POST', path, token, body));
  check(created.every((a) => a.status === 201), `setting up answered ${created.map((a) => `${a.status} ${a.text}`).join('; ')}`);
  const defaulted = await http('PATCH', `/api/v1/users/${user}`, token, { defaultAccount: beta });
  check(defaulted.status === 200, `making ${beta} the default answered ${defaulted.status}: ${defaulted.text}`);
  cleanup.push(() => http('DELETE', `/api/v1/users/${user}`, token));
  // Other users' associations exist, and must not be offered.
  const everyone = (await http('GET', '/api/v1/associations?size=1000', token)).json.items;
  check(everyone.some((a) => a.user !== user && a.user), 'no other user has an association to leave out');

  step = 'sign in as the user and open the form';
  await page.goto(`${base}/`);
  await signInWithForm(page, user, password);
  await page.evaluate(() => { window.location.hash = '/submit'; });
  await tid('view-submit').waitFor();

  step = "the account and QOS pickers list exactly the user's choices";
  await page.locator('select[data-testid=submit-account]').waitFor();
  const accounts = await optionsOf('submit-account');
  check(JSON.stringify(accounts.map((o) => o.value)) === JSON.stringify(['', alpha, beta]),
    `the account picker offers ${JSON.stringify(accounts)}`);
  check(/default/.test(accounts[0].label) && accounts[0].label.includes(beta) && /default/.test(accounts[2].label)
    && !/default/.test(accounts[1].label), `the default account ${beta} is not the one marked: ${JSON.stringify(accounts)}`);
  let qos = await optionsOf('submit-qos');
  check(JSON.stringify(qos.map((o) => o.value)) === JSON.stringify(['', 'normal']), `with ${beta} the QOS picker offers ${JSON.stringify(qos)}`);
  await tid('submit-account').selectOption(alpha);
  qos = await optionsOf('submit-qos');
  check(JSON.stringify(qos.map((o) => o.value)) === JSON.stringify(['', ...[gold, 'normal'].sort()]), `with ${alpha} the QOS picker offers ${JSON.stringify(qos)}`);
  check(qos[0].label.includes(gold) && /default/.test(qos.find((o) => o.value === gold).label)
    && !/default/.test(qos.find((o) => o.value === 'normal').label), `${alpha}'s default QOS ${gold} is not the one marked: ${JSON.stringify(qos)}`);
  await tid('submit-qos').selectOption(gold);
  // An account that does not allow the QOS picked drops it, rather than sending it unseen.
  await tid('submit-account').selectOption(beta);
  await page.waitForFunction((g) => document.querySelector('[data-testid=submit-qos]')?.value === ''
    && !document.querySelector('[data-testid=submit-command]')?.textContent.includes(g), gold)
    .catch(async () => fail(`${beta}, which allows only normal, keeps QOS ${gold}: ${await tid('submit-command').textContent()}`));
  await tid('submit-account').selectOption(alpha);
  await tid('submit-qos').selectOption(gold);
  await page.screenshot({ path: join(shots, 'submit-pickers-1440x900.png') });

  step = 'three mistakes on three lines, all shown after one click of Submit';
  await tid('submit-script').fill(`#SBATCH --job-name=e2e-bad-${suffix}\n#SBATCH --partition=nowhere\n#SBATCH --time=soon\nsrun hostname\n`);
  jobPosts.length = 0;
  expectedErrors = [/status of 400/];
  await tid('submit-button').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=script-error]').length >= 3)
    .catch(async () => fail(`expected 3 line errors, saw ${JSON.stringify(await tid('script-error').allTextContents())}`));
  await awaitNoBusy();
  expectedErrors = [];
  const errors = await tid('script-error').evaluateAll((items) => items.map((li) => ({ line: li.dataset.line, text: li.textContent })));
  check(JSON.stringify(errors.map((e) => e.line)) === JSON.stringify(['1', '2', '3']), `the errors are on lines ${JSON.stringify(errors)}`);
  check(/first line must start with #!/.test(errors[0].text), `line 1 reads "${errors[0].text}"`);
  check(/nowhere/.test(errors[1].text), `line 2 reads "${errors[1].text}"`);
  check(/soon/.test(errors[2].text) || /time/i.test(errors[2].text), `line 3 reads "${errors[2].text}"`);
  for (const line of [1, 2, 3]) check((await tid(`script-line-error-${line}`).count()) === 1, `the gutter does not mark line ${line}`);
  check((await tid('script-line-error-4').count()) === 0, 'the gutter marks line 4, which is right');
  const fieldErrors = await page.locator('[data-testid^=error-]').allTextContents();
  check(fieldErrors.length === 0, `errors show under fields too: ${JSON.stringify(fieldErrors)}`);
  check((await tid('submit-error').count()) === 0, `an error shows apart from the lines: ${await tid('submit-error').first().textContent().catch(() => '')}`);
  check(jobPosts.length === 1, `one click sent ${JSON.stringify(jobPosts)}`);
  log(`one click, one request (${jobPosts[0]}), three lines: ${errors.map((e) => `${e.line}: ${e.text}`).join(' | ')}`);
  await accessibleAtBothWidths('three-mistakes');

  step = 'with #! on line 1, the server alone refuses the submission: its two mistakes, one POST';
  await tid('submit-script').fill(`#!/bin/bash\n#SBATCH --partition=nowhere\n#SBATCH --time=soon\nsrun hostname\n`);
  jobPosts.length = 0;
  expectedErrors = [/status of 400/];
  await tid('submit-button').click();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=script-error]')].map((li) => li.dataset.line).join() === '2,3')
    .catch(async () => fail(`expected errors on lines 2 and 3, saw ${JSON.stringify(await tid('script-error').allTextContents())}`));
  await awaitNoBusy();
  expectedErrors = [];
  check((await tid('script-line-error-1').count()) === 0, 'line 1 is still marked once it starts with #!');
  check(JSON.stringify(jobPosts) === JSON.stringify(['POST /api/v1/jobs']), `the submission sent ${JSON.stringify(jobPosts)}`);

  step = 'nothing was submitted';
  const mine = await http('GET', `/api/v1/jobs?user=${user}&state=PENDING,RUNNING,COMPLETED,FAILED,CANCELLED`, token);
  check(mine.status === 200 && mine.json.total === 0, `the user has jobs after a refused submission: ${mine.text}`);

  step = 'the fixed script: When would it start?';
  await tid('submit-script').fill(`#!/bin/bash\n#SBATCH --job-name=e2e-good-${suffix}\n#SBATCH --partition=cpu\n#SBATCH --time=00:10:00\nsrun hostname\n`);
  jobPosts.length = 0;
  await tid('submit-test').click();
  await tid('submit-trial').waitFor();
  await awaitNoBusy();
  check((await tid('script-error').count()) === 0, `the fixed script still shows ${JSON.stringify(await tid('script-error').allTextContents())}`);
  const start = (await tid('submit-trial-start').textContent()) ?? '';
  check(/^It would start (at once|in )/.test(start), `the estimate reads "${start}"`);
  const at = await tid('submit-trial-start').getAttribute('data-at');
  check(at && !Number.isNaN(Date.parse(at)), `the estimate names no time: ${at}`);
  const nodes = (await tid('submit-trial-nodes').textContent()) ?? '';
  check(/^On cpu\S* in partition cpu/.test(nodes), `the nodes read "${nodes}"`);
  check(JSON.stringify(jobPosts) === JSON.stringify(['POST /api/v1/jobs/test']), `the estimate sent ${JSON.stringify(jobPosts)}`);
  const still = await http('GET', `/api/v1/jobs?user=${user}&state=PENDING,RUNNING,COMPLETED,FAILED,CANCELLED`, token);
  check(still.json.total === 0, `asking when it would start created a job: ${still.text}`);
  log(`${start} ${nodes}`);
  await accessibleAtBothWidths('estimate');

  step = 'Submit lands on the job page';
  await tid('submit-button').click();
  await page.waitForFunction(() => /^#\/jobs\/\d+/.test(window.location.hash));
  const id = await page.evaluate(() => window.location.hash.match(/^#\/jobs\/(\d+)/)[1]);
  jobs.push(id);
  await tid('view-job').waitFor();
  const job = (await http('GET', `/api/v1/jobs/${id}`, token)).json;
  check(job.user === user && job.account === alpha && job.qos === gold && job.name === `e2e-good-${suffix}` && job.partition === 'cpu',
    `job ${id} is ${JSON.stringify({ user: job.user, account: job.account, qos: job.qos, name: job.name, partition: job.partition })}`);
  log(`submitted job ${id} as ${user} in ${alpha}/${gold}`);

  step = "the job page says when a copy of the job would start, and submits nothing";
  const before = (await http('GET', `/api/v1/jobs?user=${user}`, token)).json.total;
  jobPosts.length = 0;
  await tid('job-what-if-ask').click();
  const copyStart = await tid('job-what-if-start').textContent({ timeout: 15000 })
    .catch(async () => fail(`no start for a copy: ${await tid('job-what-if').textContent().catch(() => '')}`));
  check(/would start/.test(copyStart), `the copy's start reads "${copyStart}"`);
  check(JSON.stringify(jobPosts) === JSON.stringify(['POST /api/v1/jobs/test']), `asking sent ${JSON.stringify(jobPosts)}`);
  const after = (await http('GET', `/api/v1/jobs?user=${user}`, token)).json.total;
  check(after === before, `asking about a copy created a job (${before} jobs before, ${after} after)`);
  log(`a copy: ${copyStart}`);

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'submit-failure.png'));
} finally {
  for (const id of jobs.reverse()) await http('DELETE', `/api/v1/jobs/${id}`, token).catch(() => {});
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  await context.close().catch(() => {});
}
process.exit(exitCode);
