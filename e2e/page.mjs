// Browser helpers of the panel tests (panel.test.mjs, desktop.test.mjs): Debian's chromium
// driven by playwright-core, and opening the Memory drawer on a session as a user does.
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { E2E, scratch } from './lib.mjs'
import { waitFor } from '../test/support/wait.mjs'

/** Where the panel tests' screenshots go. */
export const ART = join(E2E, 'artifacts')

/** `step(name, fn)`: a test that, when it fails, keeps the scratch and saves `page()` as `{prefix}{name's first part}.png`. */
export const browserStep = (prefix, page) => (name, fn) =>
  test(name, async () => {
    try {
      await fn()
    } catch (e) {
      scratch.fail()
      await page()
        ?.screenshot({ path: join(ART, `${prefix}${name.split(':')[0].replace(/\W+/g, '-')}.png`) })
        .catch(() => {})
      throw e
    }
  })

export { waitFor }

/** Chromium (`$CHROMIUM` or /usr/bin/chromium, see browser.sh) with a scratch profile under `work`; returns { browser, page }. */
export async function launchChromium(work) {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launchPersistentContext(mkdtempSync(join(work, 'chromium-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    timezoneId: 'UTC',
  })
  const page = browser.pages()[0] ?? (await browser.newPage())
  page.setDefaultTimeout(20_000)
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`))
  return { browser, page }
}

/** Load the web UI at `base`, open the session in the sidebar as a user does, then the Memory drawer (entries listed, the budgets of `cwd`). */
export async function openPanel(page, base, cwd) {
  await page.goto(`${base}/`)
  await page.locator('.mm-open').waitFor({ timeout: 30_000 })
  // dsh web's first-run notice comes up a moment after the page; the session of the earlier
  // turn is a row of the project's workspace (or of Ungrouped), which may start collapsed.
  const notice = page.getByRole('button', { name: 'Continue' })
  const tree = page.getByRole('tree', { name: 'Sessions' })
  const row = tree.locator('[role=treeitem][aria-selected]').filter({ hasNotText: 'New Session' }).first()
  await waitFor(
    async () => {
      if (await notice.isVisible()) await notice.click()
      else if (await row.isVisible()) return true
      // (the notice may come up during the click and make the sidebar inert: try again after it)
      else if (await tree.locator('[role=treeitem][aria-expanded=false]').first().isVisible())
        await tree
          .locator('[role=treeitem][aria-expanded=false]')
          .first()
          .click({ position: { x: 40, y: 10 }, timeout: 1500 })
          .catch(() => {})
      await page.waitForTimeout(400)
      return false
    },
    'the session row in the sidebar',
    30_000,
  )
  await row.click({ position: { x: 24, y: 10 } })
  await waitFor(async () => (await row.getAttribute('aria-selected')) === 'true', 'the session selected')
  await page.locator('.mm-open').click()
  await page.locator('.mm-drawer:not([hidden])').waitFor()
  await waitFor(() => page.evaluate(() => document.querySelectorAll('.mm-entry').length > 0), 'entries in the drawer')
  await waitFor(async () => (await page.locator('.mm-budgets-title').textContent()).includes(cwd), "the session's workspace in the budgets")
}
