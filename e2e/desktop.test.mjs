// dsh desktop shells: the community desktop apps run dsh with a profile of
// their own, made of `dsh-base` + `dsh-web-app` + their layer (the web client platform). This
// composes such a profile, `desktop`, in a scratch $DSH_HOME the way a shell does: dsh
// initializes it (`dsh plugin --profile desktop …`: manifest, user layer, pnpm settings), the
// shell puts dsh-web-app after dsh-base in its bundles and adds its own layer as a bundle
// package (e2e/desktop-shell). Then the packed plugin goes in with
// `dsh plugin --profile desktop add`, `dsh --profile desktop` serves the web UI, and the Memory
// drawer is opened in chromium on a session. There is no `web` profile in that home.
import { after, before } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CWD, E2E, env, HOME, ok, overlay, profileJson, scratch, sh, stageTarball, turn, WORK } from './lib.mjs'
import { ART, browserStep, launchChromium, openPanel, waitFor } from './page.mjs'

const DB = join(HOME, 'dsh-memento', 'memory.db') // the default store: one per $DSH_HOME, whatever the profile
const PROFILE = 'desktop'
const SHELL = 'dsh-desktop-shell-e2e'
const PORT = 19000 + (process.pid % 400)
const BASE = `http://127.0.0.1:${PORT}`
const SEEDED = [
  { track: 'user', scope: 'user-global', text: 'desk-global: the user reads answers in a desktop app' },
  { track: 'user', scope: 'workspace', text: 'desk-project: this project builds with make' },
  { track: 'agent', scope: 'workspace', text: 'desk-convention: run the linter before committing', tags: ['desk'] },
]
const writer = { agent: { session: { id: 'session-e2e-desk-seed', header: { cwd: CWD } } } }
let web = null
let browser = null
let page = null
let MemoryProvider

const withStore = async (fn) => {
  const s = new MemoryProvider({ dbPath: DB, gate: async () => 'allowed-once' })
  try {
    return await fn(s)
  } finally {
    s.close()
  }
}
const bundles = () => profileJson(PROFILE).dsh.profile.bundles
const texts = () => page.locator('.mm-entry .mm-text').allTextContents()

before(async () => {
  ;({ MemoryProvider } = await import('../index.mjs'))
  mkdirSync(CWD, { recursive: true })
  mkdirSync(ART, { recursive: true })
  // 1. dsh initializes the profile (any pnpm command does; a name with no shipped template gets dsh-base alone).
  ok(sh('dsh', ['plugin', '--profile', PROFILE, 'list']), 'dsh plugin --profile desktop list')
  assert.deepEqual(bundles(), ['@deepseek-ai/dsh-base'])
  // 2. The shell makes it a web-client profile: dsh-web-app right after dsh-base, as the `web` template has it.
  const manifest = profileJson(PROFILE)
  manifest.dsh.profile.bundles = ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app']
  writeFileSync(join(HOME, 'profiles', PROFILE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  // 3. Its own layer: a bundle package, appended by dsh's reconcile.
  ok(
    sh('dsh', ['plugin', '--profile', PROFILE, 'add', `file:${join(E2E, 'desktop-shell')}`], { timeout: 300_000 }),
    'dsh plugin --profile desktop add <the shell layer>',
  )
  assert.deepEqual(bundles(), ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', SHELL])
  // 4. The user installs the plugin into the shell's profile.
  ok(
    sh('dsh', ['plugin', '--profile', PROFILE, 'add', stageTarball()], { timeout: 300_000 }),
    'dsh plugin --profile desktop add <dsh-memento>',
  )
  ok(await turn('hello'), 'a first session in the project') // the session the page opens (same $DSH_HOME)
  await withStore(async (s) => assert.equal((await s.seed(SEEDED, writer)).added, SEEDED.length))
})
after(async () => {
  await browser?.close().catch(() => {})
  if (web?.exitCode === null) {
    web.kill('SIGTERM')
    await new Promise((r) => (web.exitCode !== null ? r() : web.once('exit', r)))
  }
  scratch.finish()
})
const step = browserStep('failed-desktop-', () => page)

step("desktop profile: dsh-base + dsh-web-app + the shell's layer + dsh-memento, composed; no `web` profile anywhere", async () => {
  assert.deepEqual(bundles(), ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', SHELL, 'dsh-memento'])
  assert.equal(existsSync(join(HOME, 'profiles', 'web')), false, 'the home has no web profile')
  const dump = ok(sh('dsh', ['--profile', PROFILE, '--dump-config']), 'dsh --profile desktop --dump-config').stdout
  // Rows are grouped by the layer that inserted them, `patched by` the layers that changed them.
  for (const g of ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', 'dsh-memento'])
    assert.match(dump, new RegExp(`^# == ${g.replaceAll('/', '\\/')}$`, 'm'), `# == ${g}`)
  assert.match(
    dump,
    /^# == @deepseek-ai\/dsh-web-app, patched by dsh-desktop-shell-e2e\n- id: web-runtime\n(?:.+\n)*? {4}openBrowser: false$/m,
    "the shell's layer applies",
  )
  assert.match(dump, /- id: memento\n {2}name: dsh-memento/)
})

step(
  "desktop panel: `dsh --profile desktop` serves the web UI with the Memory drawer; it lists the store for the session's workspace",
  async () => {
    web = spawn('dsh', ['--profile', PROFILE, ...overlay('hmr'), '--no-open', '--port', String(PORT)], { cwd: CWD, env, stdio: 'ignore' })
    await waitFor(async () => (await fetch(`${BASE}/api/memento/version`).catch(() => null))?.ok, 'dsh --profile desktop', 60_000)
    const boot = await (await fetch(`${BASE}/`)).text()
    assert.match(boot, /\/plugins\/dsh-memento\/client\.js/, 'the page lists our client module')
    ;({ browser, page } = await launchChromium(WORK))
    await openPanel(page, BASE, CWD)
    assert.equal(await page.locator('.mm-budgets-title').textContent(), `Budgets for ${CWD}`)
    assert.equal(await page.locator('.mm-count').textContent(), `${SEEDED.length} entries`)
    assert.deepEqual((await texts()).sort(), SEEDED.map((e) => e.text).sort())
    assert.deepEqual(await page.locator('.mm-layer').evaluateAll((els) => els.map((e) => e.dataset.layer)), [
      'user/user-global',
      'user/workspace',
      'agent/workspace',
    ])
    await page.screenshot({ path: join(ART, 'desktop-panel.png') })
  },
)

step('desktop panel write: an add confirmed in the drawer lands, audited (via panel, writePolicy ask)', async () => {
  const text = 'desk-added: prefers the desktop app'
  await page.getByRole('button', { name: 'Add entry' }).click()
  await page.locator('.mm-adding [data-field="layer"]').selectOption('user/user-global')
  await page.locator('.mm-adding textarea').fill(text)
  await page.getByRole('button', { name: 'Review change' }).click()
  const dialog = page.getByRole('alertdialog')
  await dialog.waitFor()
  assert.match(await dialog.textContent(), /desk-added: prefers the desktop app/)
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(async () => (await texts()).includes(text), 'the added entry listed')
  const row = await withStore(async (s) => s.auditList(5).find((r) => r.action === 'add'))
  assert.deepEqual([row?.text, row?.outcome], [text, 'allowed-once (via panel, writePolicy ask)'])
})

step(
  "desktop remove: `dsh plugin --profile desktop remove dsh-memento` leaves the shell's profile as it was; the store stays",
  async () => {
    await browser.close()
    browser = null
    web.kill('SIGTERM')
    await new Promise((r) => (web.exitCode !== null ? r() : web.once('exit', r)))
    ok(
      sh('dsh', ['plugin', '--profile', PROFILE, 'remove', 'dsh-memento'], { timeout: 300_000 }),
      'dsh plugin --profile desktop remove dsh-memento',
    )
    assert.deepEqual(bundles(), ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', SHELL])
    assert.equal(profileJson(PROFILE).dependencies['dsh-memento'], undefined)
    assert.ok(readFileSync(DB).length > 0, 'the store file stays')
  },
)
