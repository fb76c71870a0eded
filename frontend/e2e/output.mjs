// End-to-end test of a job's live output on its page, from a REAL agent running its real bash script
// (issue 17): the output panel shows the lines the job prints while it runs, updating without a
// reload, then says it ended; its error file is the other tab; a job on a simulated node says it has
// no output; eight tabs on running jobs' pages each show their job's output and leave Cancel answering at
// once. DashboardJarIntegrationTests starts a controller with node1 (a real agent, 8 CPUs) and sim1.
//   node frontend/e2e/output.mjs <baseUrl> <workDir> [screenshotDir]
// <workDir>: a directory the job (run by the agent as this user) and this script both reach.
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
// Exits 0 when every step passed, 1 on a failed step, 2 when Chromium is missing.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminPassword, apiClient, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const workDir = process.argv[3] ? resolve(process.argv[3]) : '';
const shots = resolve(process.argv[4] ?? 'target/screenshots');
preflight(base && workDir, 'node frontend/e2e/output.mjs <baseUrl> <workDir> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function log(message) { console.log(`[output] ${message}`); }
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }

const http = apiClient(base);

const { context, page } = await launch('gantry-output-', (text) => consoleErrors.push(`[${step}] ${text}`));
const tid = (id) => page.getByTestId(id);
const text = async (id) => (await tid(id).textContent()) ?? '';

let exitCode = 0;
try {
  step = 'sign in';
  const admin = await http('POST', '/api/v1/auth/tokens', null, { username: 'admin', password: adminPassword });
  check(admin.status === 201, `admin sign-in answered ${admin.status}: ${admin.text}`);
  const token = admin.json.token;
  await page.goto(`${base}/`);
  await signInWithForm(page, 'admin', adminPassword);

  step = "a real agent's job: its page shows the lines it prints as it prints them";
  const go = join(workDir, `go-${Date.now()}`);
  const submitted = await http('POST', '/api/v1/jobs', token, {
    name: 'e2e-talker', partition: 'batch', workdir: workDir, stdout: 'talk-%j.out', stderr: 'talk-%j.err',
    script: `#!/bin/bash\necho "first line"\necho "first error" >&2\nwhile [ ! -e ${go} ]; do sleep 0.1; done\necho "second line"\n`,
  });
  check(submitted.status === 201, `submitting answered ${submitted.status}: ${submitted.text}`);
  const id = String(submitted.json.jobId);
  log(`job ${id}`);
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${id}`);
  await page.waitForFunction(() => document.querySelector('[data-testid=job-state]')?.textContent === 'RUNNING', null, { timeout: 60000 })
    .catch(async () => fail(`the job is ${await text('job-state')}, not RUNNING`));
  await page.waitForFunction(() => (document.querySelector('[data-testid=job-output-text]')?.textContent ?? '').includes('first line'), null, { timeout: 30000 })
    .catch(async () => fail(`the output panel shows "${await text('job-output-text').catch(() => '')}" (${await text('job-output-status').catch(() => '')})`));
  check((await text('job-output-status')).startsWith('Live'), `while it runs the panel says "${await text('job-output-status')}"`);
  check(!(await text('job-output-text')).includes('second line'), 'the second line shows before the job printed it');
  await page.evaluate(() => { window.__e2eNoReload = true; });
  await page.screenshot({ path: join(shots, 'o-job-output-running-1440x900.png'), fullPage: true });

  writeFileSync(go, '');
  await page.waitForFunction(() => (document.querySelector('[data-testid=job-output-text]')?.textContent ?? '') === 'first line\nsecond line\n', null, { timeout: 30000 })
    .catch(async () => fail(`after the job went on, the panel shows ${JSON.stringify(await text('job-output-text'))}`));
  await page.waitForFunction(() => (document.querySelector('[data-testid=job-output-status]')?.textContent ?? '').includes('ended (COMPLETED)'), null, { timeout: 30000 })
    .catch(async () => fail(`at the end the panel says "${await text('job-output-status')}"`));
  await page.waitForFunction(() => document.querySelector('[data-testid=job-state]')?.textContent === 'COMPLETED', null, { timeout: 30000 });
  check(await page.evaluate(() => window.__e2eNoReload === true), 'the page reloaded while following the output');
  await page.locator('[data-testid=job-step][data-step=batch]').waitFor({ timeout: 30000 })
    .catch(() => fail('the job page lists no batch step'));

  step = "the error tab shows the job's standard error";
  await tid('job-output-tab-error').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid=job-output-text]')?.textContent ?? '') === 'first error\n', null, { timeout: 30000 })
    .catch(async () => fail(`the error tab shows ${JSON.stringify(await text('job-output-text'))}`));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `the job page is ${overflow}px wider than a 390px screen`);
  await page.screenshot({ path: join(shots, 'o-job-output-390x844.png'), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });

  step = "eight tabs on running jobs' pages: each shows its job's output, and Cancel in the first answers at once";
  // A browser opens six connections to a server: were each tab to hold its own streams, the fourth
  // would never load and the first tab's Cancel would wait behind them.
  const hold = join(workDir, `hold-${Date.now()}`);
  const tabs = [];
  for (let i = 0; i < 8; i++) {
    const job = await http('POST', '/api/v1/jobs', token, {
      name: `e2e-tab-${i}`, partition: 'batch', workdir: workDir, stdout: `tab-${i}-%j.out`,
      script: `#!/bin/bash\necho "tab ${i} says hello"\nwhile [ ! -e ${hold} ]; do sleep 0.2; done\n`,
    });
    check(job.status === 201, `submitting job ${i} answered ${job.status}: ${job.text}`);
    tabs.push({ id: String(job.json.jobId), line: `tab ${i} says hello` });
  }
  for (const tab of tabs) {
    const started = Date.now();
    for (;;) {
      const view = await http('GET', `/api/v1/jobs/${tab.id}`, token);
      if (view.json?.state === 'RUNNING') break;
      check(Date.now() - started < 60000, `job ${tab.id} is ${view.json?.state}, not RUNNING, after 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const pages = [page];
  for (let i = 1; i < tabs.length; i++) pages.push(await context.newPage());
  for (let i = 0; i < tabs.length; i++) {
    await pages[i].goto(`${base}/#/jobs/${tabs[i].id}`);
  }
  for (let i = 0; i < tabs.length; i++) {
    await pages[i].bringToFront();
    await pages[i].waitForFunction((line) => (document.querySelector('[data-testid=job-output-text]')?.textContent ?? '').includes(line),
      tabs[i].line, { timeout: 30000 })
      .catch(async () => fail(`tab ${i + 1} (job ${tabs[i].id}) shows ${JSON.stringify(await pages[i].getByTestId('job-output-text').textContent().catch(() => ''))}`
        + ` (${await pages[i].getByTestId('job-output-status').textContent().catch(() => 'no output panel')})`));
  }
  await page.bringToFront();
  await tid('job-cancel').click();
  const clicked = Date.now();
  const [cancelled] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().endsWith(`/api/v1/jobs/${tabs[0].id}`), { timeout: 20000 }),
    tid('job-cancel-confirm').click(),
  ]);
  const answeredMs = Date.now() - clicked;
  log(`Cancel answered ${cancelled.status()} in ${answeredMs} ms with ${pages.length} tabs open`);
  check(cancelled.status() >= 200 && cancelled.status() < 300, `Cancel answered ${cancelled.status()}`);
  check(answeredMs < 1000, `Cancel took ${answeredMs} ms to answer with eight tabs open`);
  await page.waitForFunction(() => /CANCELLED/.test(document.querySelector('[data-testid=job-state]')?.textContent ?? ''), null, { timeout: 30000 })
    .catch(async () => fail(`after Cancel the first tab says ${await text('job-state')}`));
  writeFileSync(hold, '');
  for (const other of pages.slice(1)) await other.close();

  step = 'a job on a simulated node says it has no output, with no invented text';
  const simulated = await http('POST', '/api/v1/jobs', token, {
    name: 'e2e-sim', partition: 'sim', script: '#!/bin/bash\necho never\n', simulatedRunSeconds: 60, timeLimitSeconds: 600,
  });
  check(simulated.status === 201, `submitting on sim answered ${simulated.status}: ${simulated.text}`);
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${simulated.json.jobId}`);
  await page.waitForFunction(() => /simulated node/.test(document.querySelector('[data-testid=job-output-status]')?.textContent ?? ''), null, { timeout: 60000 })
    .catch(async () => fail(`the simulated job's panel says "${await text('job-output-status').catch(() => '')}"`));
  check(!(await page.textContent('[data-testid=job-output]')).includes('never'), 'the simulated job shows output it never wrote');
  await http('DELETE', `/api/v1/jobs/${simulated.json.jobId}`, token);

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  log('all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'output-failure.png'));
} finally {
  await context.close().catch(() => {});
}
process.exit(exitCode);
