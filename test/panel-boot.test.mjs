// The panel's boot file (client/client.js) in a real browser, without dsh: a page that stands in
// for dsh web's module loader, client.js served as dsh serves it, and the panel modules through
// the plugin's own route (lib/panel/). The disposer works before and after the dynamic
// import of the panel resolves. Without a chromium the run fails (scripts/test-tools.sh installs
// Debian's); only Wine, whose node.exe cannot start it, skips.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { skip as noNative } from './support/provider.mjs'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
// Under Wine (test/platforms/wine.sh) /usr/bin/chromium is visible through drive Z:, but it is a
// Linux program, which node.exe cannot start.
const wine = process.env.MEMENTO_UNDER_WINE === '1' && process.env.CHROMIUM === undefined
if (!wine && !existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: run scripts/test-tools.sh, or set CHROMIUM`)
const skip =
  noNative || (wine ? `under Wine ${CHROMIUM} is the Linux chromium, which node.exe cannot start (set CHROMIUM to a Windows one)` : false)
const CLIENT_JS = fileURLToPath(new URL('../client/client.js', import.meta.url))
const PAGE =
  '<!doctype html><html><head><script>window.__ModuleLoader__ = { load(r) { window.__registered = r } }</script>' +
  '<script src="/plugins/dsh-memento/client.js?rev=test"></script></head><body></body></html>'

describe('panel boot file in a browser', { skip }, () => {
  let server
  let base
  let browser
  let profile
  let hold = null // while set, the panel's entry module waits for it
  const seen = []
  before(async () => {
    const { makeRoutes } = await import('../lib/panel/index.mjs')
    const { strings } = await import('../lib/strings.mjs')
    const modules = makeRoutes({
      service: {},
      provider: {},
      config: { language: 'en', panelEntriesLimit: 200 },
      userWrite: () => ({}),
    }).find((r) => r.kind === 'prefix')
    server = http.createServer(async (req, res) => {
      const path = new URL(req.url, 'http://x').pathname
      seen.push(path)
      if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
      if (path === '/plugins/dsh-memento/client.js')
        return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(CLIENT_JS))
      if (path === '/api/memento/panel') {
        const body = {
          language: 'en',
          labels: strings('en').panel,
          token: 't',
          layers: ['user/user-global', 'user/workspace', 'agent/user-global', 'agent/workspace'],
          pageSize: 50,
        }
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      }
      if (path === modules.path || path.startsWith(`${modules.path}/`)) {
        if (path.endsWith('/panel.js') && hold) await hold
        return modules.handler(req, res)
      }
      res.writeHead(404).end()
    })
    await new Promise((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${server.address().port}`
    const { chromium } = await import('playwright-core')
    profile = mkdtempSync(join(tmpdir(), 'memento-boot-'))
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
  })
  after(async () => {
    await browser?.close().catch(() => {})
    server?.closeAllConnections()
    await new Promise((r) => (server ? server.close(r) : r()))
    if (profile) rmSync(profile, { recursive: true, force: true })
  })

  /** A fresh page (a fresh module map) with client.js registered; `apply` runs in it, its disposer kept as `window.__dispose`. */
  async function open() {
    const page = await browser.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${base}/`)
    assert.equal(await page.evaluate(() => window.__registered.id), 'dsh-memento')
    return { page, errors }
  }
  const apply = (page) =>
    page.evaluate(() => window.__registered.factory().apply({ sessions: null, effect: (f) => (window.__dispose = f()) }))

  test('apply loads the panel modules from the plugin route; the disposer takes the drawer and its style away', async () => {
    const { page, errors } = await open()
    await apply(page)
    await page.locator('#dsh-memento-panel .mm-open').waitFor()
    assert.equal(await page.locator('.mm-open').textContent(), '🧠 Memory')
    assert.equal(await page.locator('style[data-plugin="dsh-memento"]').count(), 1)
    for (const name of ['panel', 'state', 'api', 'render', 'ledger', 'sync', 'events', 'style'])
      assert.ok(seen.includes(`/api/memento/client/${name}.js`), name)
    await page.evaluate(() => window.__dispose())
    assert.deepEqual(
      await page.evaluate(() => [
        !!document.getElementById('dsh-memento-panel'),
        !!document.querySelector('style[data-plugin="dsh-memento"]'),
      ]),
      [false, false],
    )
    assert.deepEqual(errors, [])
    await page.close()
  })

  test('disposed before the import resolves: the panel never appears and asks the server nothing', async () => {
    let release
    hold = new Promise((r) => (release = r))
    const { page, errors } = await open()
    const panelCalls = () => seen.filter((p) => p === '/api/memento/panel').length
    const before = panelCalls()
    await apply(page)
    await page.evaluate(() => window.__dispose())
    release()
    hold = null
    // The import settles (the module is served), then nothing happens.
    await page.waitForFunction(() =>
      performance.getEntriesByType('resource').some((e) => e.name.endsWith('/api/memento/client/panel.js') && e.responseEnd > 0),
    )
    await page.waitForTimeout(500)
    assert.equal(await page.locator('#dsh-memento-panel').count(), 0)
    assert.equal(panelCalls(), before, 'no labels fetched')
    assert.deepEqual(errors, [])
    await page.close()
  })
})
