// End-to-end test of a job's GPU use on its page (issue 33): the GPU use card shows the average and
// peak utilisation the controller computed from the agents' readings, and the chart draws one line per
// GPU; the overview lists the job among those whose allocated GPUs were idle longest. DashboardIntegrationTests runs a GPU job and stores the readings an agent would have sent for it.
//   node frontend/e2e/gpu.mjs <baseUrl> <jobId> <average> <peak> [screenshotDir]
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
// Exits 0 when every step passed, 1 on a failed step, 2 when Chromium is missing.
import { join, resolve } from 'node:path';
import { adminPassword, launch, preflight, reportFailure, signInWithForm } from './browser.mjs';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
const [jobId, average, peak] = process.argv.slice(3, 6);
const shots = resolve(process.argv[6] ?? 'target/screenshots');
preflight(base && jobId && average && peak, 'node frontend/e2e/gpu.mjs <baseUrl> <jobId> <average> <peak> [screenshotDir]', shots);

let step = 'start';
const consoleErrors = [];
function fail(message) { throw new Error(`${step}: ${message}`); }
function check(condition, message) { if (!condition) fail(message); }

const { context, page } = await launch('gantry-gpu-', (text) => consoleErrors.push(`[${step}] ${text}`));
const text = async (id) => (await page.getByTestId(id).textContent()) ?? '';

let exitCode = 0;
try {
  step = 'sign in';
  await page.goto(`${base}/`);
  await signInWithForm(page, 'admin', adminPassword);

  step = "the job's page shows its GPU use";
  await page.evaluate((h) => { window.location.hash = h; }, `/jobs/${jobId}`);
  await page.getByTestId('job-gpu-usage').waitFor({ timeout: 30000 }).catch(() => fail('no GPU use card on the job page'));
  const util = await text('job-gpu-util');
  check(util.includes(`${average} % average`) && util.includes(`${peak} % peak`),
    `the card says "${util}", not ${average} % average and ${peak} % peak`);

  step = 'the chart draws one line per GPU';
  const chart = page.getByTestId('job-gpu-chart');
  await chart.waitFor({ timeout: 30000 }).catch(() => fail('no GPU utilisation chart'));
  check(/GPU utilisation of job/.test((await chart.getAttribute('aria-label')) ?? ''), 'the chart has no label saying what it shows');
  const drawn = await chart.evaluate((el) => [...el.querySelectorAll('svg path')]
    .filter((p) => (p.getAttribute('d') ?? '').length > 20).length);
  check(drawn >= 2, `the chart draws ${drawn} lines, not one for each of the job's 2 GPUs`);
  const box = await chart.boundingBox();
  check(box && box.width > 200 && box.height > 100, `the chart is ${box?.width}x${box?.height} px`);
  await page.screenshot({ path: join(shots, 'g-job-gpu-1440x900.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(250);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `the job page is ${overflow}px wider than a 390px screen`);
  await page.screenshot({ path: join(shots, 'g-job-gpu-390x844.png'), fullPage: true });

  step = 'the overview lists the job among those whose allocated GPUs were idle';
  await page.evaluate((h) => { window.location.hash = h; }, '/');
  await page.getByTestId('allocated-idle').waitFor({ timeout: 30000 }).catch(() => fail('no allocated-but-idle card on the overview'));
  const row = page.locator(`[data-testid=allocated-idle-job][data-job="${jobId}"]`);
  await row.waitFor({ timeout: 30000 }).catch(() => fail(`job ${jobId} is not among the jobs whose GPUs were idle longest`));
  const line = (await row.textContent()) ?? '';
  check(line.includes('0.8 GPU-h idle of 3.3 GPU-h'), `its line says "${line}", not 0.8 GPU-h idle of 3.3 GPU-h`);
  check((await row.locator('a').getAttribute('href')) === `#/jobs/${jobId}`, 'its line does not link to the job');

  step = 'no console errors';
  check(consoleErrors.length === 0, `console errors:\n  ${consoleErrors.join('\n  ')}`);
  console.log('[gpu] all steps passed');
} catch (error) {
  exitCode = 1;
  await reportFailure(page, step, error, consoleErrors, join(shots, 'gpu-failure.png'));
} finally {
  await context.close().catch(() => {});
}
process.exit(exitCode);
