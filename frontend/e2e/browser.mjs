// What the dashboard's end-to-end scripts (run.mjs, views.mjs, output.mjs) share: their arguments'
// check, the JSON API, Debian's Chromium with a profile of its own, signing in through the form and
// the report of a failed step.
// Env: E2E_ADMIN_PASSWORD (default admin-test-password), CHROMIUM (default /usr/bin/chromium).
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const adminPassword = process.env.E2E_ADMIN_PASSWORD ?? 'admin-test-password';
export const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Exits 1 with the usage line unless `argumentsGiven`, 2 when there is no Chromium; then makes the
 * screenshot directory `shots`.
 */
export function preflight(argumentsGiven, usage, shots) {
  if (!argumentsGiven) {
    console.error(`usage: ${usage}`);
    process.exit(1);
  }
  if (!existsSync(executablePath)) {
    console.error(`E2E FAILED: no Chromium at ${executablePath}. Install it with: apt-get install -y chromium`);
    process.exit(2);
  }
  mkdirSync(shots, { recursive: true });
}

/** `http(method, path, token, body)` against the controller at `base`: its status, JSON (or null) and text. */
export function apiClient(base) {
  return async function http(method, path, token, body) {
    const response = await fetch(base + path, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: response.status, json, text };
  };
}

/**
 * Headless Chromium at 1440x900 with a fresh profile in a temporary directory named after `profile`,
 * 20 s for each action. `onError(text, uncaught)` hears each console error (its text and the URL it
 * came from) and each uncaught exception in the page (`uncaught: <message>`, with `uncaught` true).
 */
export async function launch(profile, onError) {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), profile)), {
    executablePath,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(20000);
  const page = context.pages()[0] ?? await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') onError(`${msg.text()} (${msg.location()?.url ?? ''})`, false);
  });
  page.on('pageerror', (error) => onError(`uncaught: ${error.message}`, true));
  return { context, page };
}

/** Signs in through the sign-in form the page shows and waits for the overview. */
export async function signInWithForm(page, username, password) {
  await page.getByTestId('signin-username').fill(username);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('view-overview').waitFor();
}

/** Says which step failed and why, with the console errors seen so far, and saves a screenshot at `shot`. */
export async function reportFailure(page, step, error, consoleErrors, shot) {
  console.error(`E2E FAILED at "${step}": ${error.message}`);
  if (consoleErrors.length) console.error(`console errors so far:\n  ${consoleErrors.join('\n  ')}`);
  await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
}
