// The web panel in a REAL browser against the REAL `dsh web` (@deepseek-ai/dsh@0.1.0-rc.8):
// Debian's chromium driven by playwright-core (no browser download), the packed plugin
// installed with `dsh plugin add`, a 300-entry store, and a session opened in the page as a
// user would. Screenshots go to e2e/artifacts/ (kept by CI as artifacts). Run with
// `npm run test:e2e` (e2e/run.sh installs the harness and the browser first).
import { after, before } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import http from 'node:http'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CWD, env, HOME, ok, overlay, ROOT, scratch, sessionIds, sh, stageTarball, turn, WORK } from './lib.mjs'
import { ART, browserStep, launchChromium, openPanel as openPanelAt, waitFor } from './page.mjs'
import { DEFAULT_CONFIG } from '../lib/config.mjs'
import { snapshotFor } from '../lib/snapshot.mjs'

const DB = join(HOME, 'dsh-memento', 'memory.db')
const BUDGETS = { user: { userGlobal: 100000, workspace: 100000 }, agent: { userGlobal: 100000, workspace: 100000 } }
const OTHER = '/srv/checkouts/other-repo'
const LONG_WS =
  '/home/user/projects/一个很长的中文目录名称用来测试换行/and-a-very-long-directory-name-without-any-spaces-at-all-to-test-wrapping'
const LONG_URL = `https://example.com/${'very-long-path-segment-'.repeat(12)}?q=${'x'.repeat(80)}`
const CJK = '用户喜欢在深夜工作，偏好简洁的中文回答，不要使用表情符号。'.repeat(6)
const PORT = 19400 + (process.pid % 400)
const BASE = `http://127.0.0.1:${PORT}`
let web = null
let browser = null
let page = null
let MemoryProvider
let workspaceKeyOf
const shots = []

const store = () => new MemoryProvider({ dbPath: DB, gate: async () => 'allowed-once', budgets: BUDGETS })
const writer = { agent: { session: { id: 'session-e2e-seed', header: { cwd: CWD } } } }
const withStore = async (fn) => {
  const s = store()
  try {
    return await fn(s)
  } finally {
    s.close()
  }
}

/** 300 entries over the four layers, three workspaces and two agents (the first page is 50). */
function seedInputs() {
  const out = []
  const push = (n, track, scope, workspaceKey, agentKey, label) => {
    for (let i = 0; i < n; i++)
      out.push({
        track,
        scope,
        ...(typeof workspaceKey === 'string' && workspaceKey !== '' ? { workspaceKey } : {}),
        agentKey,
        text: `${label} note #${String(out.length).padStart(3, '0')}: a fact kept for the panel test.`,
        tags: i % 7 === 0 ? ['seed', `t${i % 3}`] : [],
      })
  }
  push(41, 'user', 'user-global', '', '', 'global preference')
  push(56, 'user', 'workspace', null, '', 'project preference')
  push(40, 'user', 'workspace', OTHER, '', 'other repo preference')
  push(40, 'agent', 'user-global', '', 'coder', 'environment fact')
  push(56, 'agent', 'workspace', null, '', 'project convention')
  push(30, 'agent', 'workspace', LONG_WS, '', 'long path convention')
  push(29, 'agent', 'workspace', OTHER, 'coder', 'other repo lesson')
  const special = [
    {
      track: 'agent',
      scope: 'workspace',
      workspaceKey: OTHER,
      agentKey: 'coder',
      text: 'the oldest lesson: kiwi-7f3a marks the deploy script',
      tags: ['deploy'],
    },
    {
      track: 'user',
      scope: 'user-global',
      text: `docs live at ${LONG_URL} and ${CJK}`,
      tags: ['链接', 'a-long-tag-name-without-spaces32'],
    },
    {
      track: 'user',
      scope: 'user-global',
      text: `a long entry\n${Array.from({ length: 14 }, (_, i) => `line ${i + 1} of a long note that fills the screen`).join('\n')}`,
    },
    { track: 'user', scope: 'user-global', text: '<img src=x onerror="window.__pwned=1"> is just text' },
    { track: 'user', scope: 'workspace', text: 'edit-me-token: the user prefers tabs', tags: ['style'] },
    { track: 'user', scope: 'workspace', text: 'remove-me-token: an outdated fact' },
    { track: 'agent', scope: 'workspace', text: 'merge-a-token: run cargo fmt' },
    { track: 'agent', scope: 'workspace', text: 'merge-b-token: run cargo clippy' },
  ]
  // Two batches: the special entries are the newest of their layers (kiwi still sorts last of
  // all: an agent/workspace entry of another workspace).
  return [out.slice(0, 300 - special.length), special]
}

async function startWeb(...overlays) {
  await stopWeb()
  web = spawn('dsh', ['web', ...overlay('hmr'), ...overlays.flatMap((o) => overlay(o)), '--no-open', '--port', String(PORT)], {
    cwd: CWD,
    env,
    stdio: 'ignore',
  })
  await waitFor(async () => (await fetch(`${BASE}/api/memento/version`).catch(() => null))?.ok, 'dsh web', 60_000)
}
async function stopWeb() {
  if (!web) return
  const w = web
  web = null
  if (w.exitCode === null) {
    w.kill('SIGTERM')
    await new Promise((r) => (w.exitCode !== null ? r() : w.once('exit', r)))
  }
}

async function shot(name, what) {
  await page.screenshot({ path: join(ART, name) })
  shots.push(`${name}: ${what}`)
}

/** Load dsh web, open the session in the sidebar as a user does, then the Memory drawer. */
const openPanel = () => openPanelAt(page, BASE, CWD)
const search = async (text) => {
  const before = await page.evaluate(() => document.querySelector('.mm-list').innerHTML)
  await page.locator('.mm-search').fill(text)
  await waitFor(() => page.evaluate((b) => document.querySelector('.mm-list').innerHTML !== b, before), `search ${text}`)
}
const texts = () => page.locator('.mm-entry .mm-text').allTextContents()
const audit = (n = 30) => withStore(async (s) => s.auditList(n))

/** Boxes that stick out of the drawer sideways, and the drawer's own scroll widths. */
const overflow = () =>
  page.evaluate(() => {
    const d = document.querySelector('.mm-drawer')
    const box = d.getBoundingClientRect()
    const out = [...d.querySelectorAll('*')].filter((el) => {
      const b = el.getBoundingClientRect()
      return b.width > 0 && b.height > 0 && (b.right > box.right + 0.5 || b.left < box.left - 0.5)
    })
    const scroll = d.querySelector('.mm-scroll')
    return {
      outside: out.map((el) => `${el.tagName}.${el.className}`),
      scroll: [scroll.scrollWidth, scroll.clientWidth],
      page: [document.documentElement.scrollWidth, innerWidth],
    }
  })

/** One HTTP request with exactly these headers (fetch cannot set Host or Origin). */
function raw(path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path, method, headers, setHost: false }, (res) => {
      let b = ''
      res.on('data', (d) => (b += d))
      res.on('end', () => resolve({ status: res.statusCode, body: b }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

before(async () => {
  ;({ MemoryProvider, workspaceKeyOf } = await import('../index.mjs'))
  mkdirSync(CWD, { recursive: true })
  mkdirSync(ART, { recursive: true })
  ok(sh('dsh', ['plugin', '--profile', 'web', 'add', stageTarball()], { timeout: 300_000 }), 'dsh plugin --profile web add')
  ok(await turn('hello'), 'a first session in the project') // the session the page opens
  await withStore(async (s) => {
    let added = 0
    for (const batch of seedInputs()) {
      added += (await s.seed(batch, writer)).added
      await new Promise((r) => setTimeout(r, 5))
    }
    assert.equal(added, 300)
    s.proposalAdd({ kind: 'e2e', track: 'user', scope: 'user-global', text: 'proposal-approve-token: prefers dark roast coffee' })
    s.proposalAdd({ kind: 'e2e-2', track: 'user', scope: 'user-global', text: 'proposal-dismiss-token: likes loud music' })
  })
  await startWeb('panel')
  ;({ browser, page } = await launchChromium(WORK))
})
after(async () => {
  await browser?.close().catch(() => {})
  await stopWeb()
  if (shots.length) process.stderr.write(`panel screenshots in ${ART}:\n${shots.map((s) => `  ${s}`).join('\n')}\n`)
  scratch.finish()
})
const step = browserStep('failed-', () => page)

step(
  "panel layout: the session's budgets pinned on top, the four layers in order, workspaces labelled by path, tags shown, HTML escaped",
  async () => {
    await openPanel()
    const budgets = await page.locator('.mm-budgets-title').textContent()
    assert.equal(budgets, `Budgets for ${CWD}`, "the bars are the session's workspace, not the server's cwd")
    const bars = await page
      .locator('.mm-budget')
      .evaluateAll((els) => els.map((e) => [e.dataset.layer, e.querySelector('.mm-budget-row span:last-child').textContent]))
    const used = await withStore(async (s) =>
      s.budgets({ workspaceKey: CWD }).map((b) => [`${b.track}/${b.scope}`, `${b.used}/${b.limit}`]),
    )
    assert.deepEqual(bars, used)
    assert.equal(await page.locator('.mm-count').textContent(), '300 entries')
    // The first page: layers in the fixed order, this workspace before the others.
    const layers = await page.locator('.mm-layer').evaluateAll((els) => els.map((e) => e.dataset.layer))
    assert.deepEqual(layers, ['user/user-global', 'user/workspace'], 'page 1 of 50 reaches the second layer')
    const ws = await page.locator('.mm-ws').allTextContents()
    assert.equal(ws[0], `📁 ${CWD} · This workspace`)
    assert.equal(await page.locator('.mm-tag', { hasText: '#链接' }).count(), 1, 'tags are shown')
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'entry text is never HTML')
    assert.equal(await page.locator('.mm-text', { hasText: '<img src=x onerror' }).count(), 1)
    // Scrolling the list keeps the header, budgets and tabs in place.
    await page.locator('.mm-scroll').evaluate((el) => el.scrollTo(0, 4000))
    const head = await page.locator('.mm-head').boundingBox()
    assert.equal(Math.round(head.y), 0)
    await page.locator('.mm-scroll').evaluate((el) => el.scrollTo(0, 0))
    await shot(
      'panel-overview.png',
      "the drawer over dsh web: pinned budget bars of the session's workspace, layers in order, tags, the long entry collapsed",
    )
    // Every other workspace is labelled by its path when the list reaches it.
    await page.locator('[data-filter="layer"]').selectOption('agent/workspace')
    await waitFor(
      () => page.evaluate(() => [...document.querySelectorAll('.mm-layer')].every((e) => e.dataset.layer === 'agent/workspace')),
      'agent/workspace groups',
    )
    assert.deepEqual(await page.locator('.mm-ws b').allTextContents(), [CWD], "page 1: the session's workspace first")
    await page.locator('.mm-more').click()
    await waitFor(async () => (await page.locator('.mm-entry').count()) === 100, 'page 2 appended')
    assert.deepEqual(
      await page.locator('.mm-ws b').allTextContents(),
      [CWD, OTHER, LONG_WS].sort((a, b) => (a === CWD ? -1 : b === CWD ? 1 : a < b ? -1 : 1)),
      'other workspaces follow, labelled by path',
    )
    await page.locator('.mm-ws', { hasText: LONG_WS }).evaluate((el) => el.scrollIntoView({ block: 'center' }))
    await shot(
      'panel-workspaces.png',
      'agent/workspace entries grouped by workspace path: this workspace first, a long CJK path wrapped, another repo',
    )
    await page.locator('[data-filter="layer"]').selectOption('')
  },
)

step('panel search: finds an entry beyond the first page of a 300-entry store, on the server', async () => {
  await page.locator('.mm-search').fill('')
  await waitFor(async () => (await page.locator('.mm-entry').count()) === 50, 'the first page')
  assert.ok(!(await texts()).some((t) => t.includes('kiwi-7f3a')), 'kiwi is not on the first page')
  const served = []
  const seen = (r) => r.url().includes('/api/memento/entries') && served.push(new URL(r.url()).searchParams.get('text'))
  page.on('request', seen)
  await search('KIWI-7F3A')
  page.off('request', seen)
  assert.ok(served.includes('KIWI-7F3A'), 'the search ran on the server')
  assert.deepEqual(await texts(), ['the oldest lesson: kiwi-7f3a marks the deploy script'])
  assert.equal(await page.locator('.mm-count').textContent(), '1 entry')
  assert.equal(await page.locator('.mm-ws b').textContent(), OTHER)
  await shot('panel-search.png', 'a search for the oldest entry (beyond page 1 of 300) finds it, labelled with its workspace')
  // Paging: the panel's pages together are the store, entry for entry, as `dsh-memento list` has it.
  const cli = JSON.parse(
    ok(sh(process.execPath, [join(ROOT, 'bin', 'dsh-memento.mjs'), 'list', '--json', '--db', DB]), 'dsh-memento list').stdout,
  ).entries
  const paged = await page.evaluate(async () => {
    const out = []
    for (let offset = 0; ; offset += 200) {
      const r = await (await fetch(`/api/memento/entries?offset=${offset}&limit=200`)).json()
      out.push(...r.entries)
      if (!r.truncated) return { total: r.total, entries: out }
    }
  })
  assert.equal(paged.total, cli.length)
  const key = (e) => JSON.stringify([e.id, e.text, e.track, e.scope, e.workspaceKey, e.agentKey, e.tags, e.version])
  assert.deepEqual(paged.entries.map(key).sort(), cli.map(key).sort())
})

step('panel wrapping: long URLs, CJK and long paths never overflow sideways; a long entry is collapsed', async () => {
  await search('example.com')
  assert.equal(await page.locator('.mm-entry').count(), 1)
  let o = await overflow()
  assert.deepEqual(o.outside, [], 'nothing sticks out of the drawer')
  assert.equal(o.scroll[0], o.scroll[1], 'no horizontal scroll in the drawer')
  assert.equal(o.page[0], o.page[1], 'the page does not scroll sideways')
  await search('a long entry')
  assert.equal(await page.locator('.mm-collapsed').count(), 1, 'the long entry starts collapsed')
  const short = (await page.locator('.mm-entry').boundingBox()).height
  await page.getByRole('button', { name: 'Show more' }).click()
  assert.equal(await page.locator('.mm-collapsed').count(), 0)
  assert.ok((await page.locator('.mm-entry').boundingBox()).height > short + 100, 'show more reveals it')
  await page.setViewportSize({ width: 390, height: 844 })
  try {
    await search('')
    o = await overflow()
    assert.deepEqual(o.outside, [], 'phone width: nothing sticks out')
    assert.equal(o.scroll[0], o.scroll[1])
    await search('example.com')
    await shot('panel-narrow.png', 'a 390 px wide window: the long URL, the CJK text and the long tag wrap inside the drawer')
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 }) // the later steps need dsh's sidebar
  }
})

step('panel edit: a replace confirmed in the panel lands, with its (via panel) audit row', async () => {
  await search('edit-me-token')
  await page.getByRole('button', { name: 'Edit', exact: true }).click()
  await page.locator('.mm-entry textarea').fill('edit-me-token: the user prefers spaces, width 4')
  await page.locator('.mm-entry [data-field="tags"]').fill('style, indent')
  await page.getByRole('button', { name: 'Review change' }).click()
  const dialog = page.getByRole('alertdialog')
  await dialog.waitFor()
  assert.equal(await dialog.locator('h3').textContent(), 'Replace this entry?')
  const full = await dialog.locator('.mm-full').allTextContents()
  assert.deepEqual(
    full.slice(0, 2),
    ['edit-me-token: the user prefers tabs', 'edit-me-token: the user prefers spaces, width 4'],
    'from and to, in full',
  )
  // Every field the entry lands with, as the server planned it: layer, workspace, agent, source, tags.
  const meta = await dialog.locator('.mm-meta').allTextContents()
  assert.match(meta[1], /· source [^·]+ · tags: style, indent$/, meta[1])
  assert.equal(full[2], 'style → style, indent', 'the tag change, spelled out')
  assert.match(await dialog.locator('.mm-consent').textContent(), /via panel/)
  await shot(
    'panel-confirm-replace.png',
    'the confirmation before a replace: layer, the full old text, the full new text, the consent note',
  )
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(async () => (await texts()).includes('edit-me-token: the user prefers spaces, width 4'), 'the replaced text')
  assert.deepEqual(await page.locator('.mm-entry .mm-tag').allTextContents(), ['#style', '#indent'])
  const row = (await audit()).find((r) => r.action === 'replace')
  assert.ok(row, 'a replace audit row')
  assert.equal(row.outcome, 'allowed-once (via panel, writePolicy ask)')
  assert.equal(row.text, 'edit-me-token: the user prefers spaces, width 4')
  assert.match(row.sessionId ?? '', /^session-/, 'the write belongs to the session the page shows')
})

step('panel remove, consolidate, add and proposals: each confirmed, each audited (via panel)', async () => {
  await search('remove-me-token')
  await page.getByRole('button', { name: 'Remove', exact: true }).click()
  const dialog = page.getByRole('alertdialog')
  await dialog.waitFor() // the change as the server planned it: one round trip away
  assert.deepEqual(await dialog.locator('.mm-full').allTextContents(), ['remove-me-token: an outdated fact'], 'the full text removed')
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(async () => (await page.locator('.mm-note').first().textContent()) === 'No entry matches.', 'the entry gone')
  // Cancel is not consent: nothing is written.
  await search('merge-')
  const boxes = page.locator('.mm-entry input[type=checkbox]')
  assert.equal(await boxes.count(), 2)
  await boxes.nth(0).check()
  await boxes.nth(1).check()
  await page.getByRole('button', { name: 'Consolidate…' }).click()
  await dialog.waitFor()
  assert.deepEqual((await dialog.locator('.mm-full').allTextContents()).sort(), [
    'merge-a-token: run cargo fmt',
    'merge-b-token: run cargo clippy',
  ])
  await dialog.locator('textarea').fill('merge-token: run cargo fmt, then cargo clippy')
  // An edited text is a new change: it is reviewed (planned by the server) before it is confirmed.
  await dialog.getByRole('button', { name: 'Review change' }).click()
  await waitFor(
    async () =>
      (await dialog.getByRole('button', { name: 'Confirm' }).count()) === 1 &&
      (await dialog.locator('textarea').inputValue()) === 'merge-token: run cargo fmt, then cargo clippy',
    'the reviewed text',
  )
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(
    async () => JSON.stringify(await texts()) === JSON.stringify(['merge-token: run cargo fmt, then cargo clippy']),
    'the consolidated entry',
  )
  await page.getByRole('button', { name: 'Add entry' }).click()
  await page.locator('.mm-adding [data-field="layer"]').selectOption('user/user-global')
  await page.locator('.mm-adding textarea').fill('added-in-panel: prefers short answers')
  await page.getByRole('button', { name: 'Review change' }).click()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await page.getByRole('button', { name: 'Review change' }).click()
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await search('added-in-panel')
  assert.deepEqual(await texts(), ['added-in-panel: prefers short answers'])
  await page.getByRole('tab', { name: /Proposals/ }).click()
  await shot('panel-proposals.png', 'the proposals tab: two pending proposals, each with Approve and Dismiss')
  await page.locator('.mm-proposal', { hasText: 'proposal-approve-token' }).getByRole('button', { name: 'Approve' }).click()
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(async () => (await page.locator('.mm-proposal').count()) === 1, 'one proposal left')
  await page.locator('.mm-proposal', { hasText: 'proposal-dismiss-token' }).getByRole('button', { name: 'Dismiss' }).click()
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await waitFor(async () => (await page.locator('.mm-proposal').count()) === 0, 'no proposals left')
  const rows = await audit(40)
  const panel = (action) => rows.filter((r) => r.action === action && /\(via panel, writePolicy ask\)$/.test(r.outcome ?? ''))
  assert.equal(panel('remove').length, 1)
  assert.equal(panel('remove')[0].text, 'remove-me-token: an outdated fact')
  assert.equal(panel('consolidate-add').length, 1, rows.map((r) => `${r.action} ${r.outcome}`).join('\n'))
  assert.equal(
    rows.filter((r) => r.action === 'add' && /via panel/.test(r.outcome ?? '') && r.text === 'added-in-panel: prefers short answers')
      .length,
    1,
    'one add: the cancelled review wrote nothing',
  )
  assert.equal(await withStore(async (s) => s.proposalList('pending').length), 0)
  assert.ok(
    await withStore(async (s) =>
      s.listEntries().some((e) => e.text === 'proposal-approve-token: prefers dark roast coffee' && e.source === 'proposal'),
    ),
  )
  assert.ok(await withStore(async (s) => s.auditVerify().ok), 'the audit chain verifies')
  await page.getByRole('tab', { name: 'Audit' }).click()
  await page.locator('.mm-audit').first().waitFor()
  await shot(
    'panel-audit.png',
    "the audit tab after the panel's writes: replace, remove, consolidate, add, approve, dismiss, each (via panel, writePolicy ask)",
  )
  await page.getByRole('tab', { name: 'Entries' }).click()
})

step(
  'panel hints and health: a duplicate add names the stored entry in its confirmation; the Health view consolidates the pair through the gate',
  async () => {
    const stored = 'edit-me-token: the user prefers spaces, width 4'
    const again = 'edit-me-token: the user prefers spaces with a width of 4'
    await search('')
    await page.getByRole('button', { name: 'Add entry' }).click()
    await page.locator('.mm-adding [data-field="layer"]').selectOption('user/workspace')
    // A look-alike (another fact on the same subject) is named as similar, with no advice.
    await page.locator('.mm-adding textarea').fill('edit-me-token: the user prefers spaces in Python')
    await page.getByRole('button', { name: 'Review change' }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.waitFor()
    const hint = dialog.locator('.mm-similar')
    assert.match(await hint.first().textContent(), /^≈ Similar to \([01]\.\d\d, [^)]+\)/)
    const advice = /to keep one entry, cancel and edit/
    assert.doesNotMatch(await dialog.textContent(), advice, 'no advice to replace another fact')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('.mm-adding textarea').fill(again)
    await page.getByRole('button', { name: 'Review change' }).click()
    await dialog.waitFor()
    assert.equal(await hint.count(), 1, 'one stored entry is named')
    assert.match(await hint.textContent(), /^≈ Likely a duplicate of \([01]\.\d\d, [^)]+\)/)
    assert.equal(await hint.locator('q').textContent(), stored)
    assert.match(await dialog.textContent(), advice, 'a likely duplicate comes with the advice')
    await shot(
      'panel-confirm-similar.png',
      'adding a reworded fact: the confirmation names the stored entry it likely duplicates, with its score and why',
    )
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    // The list reloads after the write: wait for the new entry before searching.
    await waitFor(async () => (await texts()).includes(again), 'the added duplicate listed')
    await search('edit-me-token')
    assert.deepEqual((await texts()).sort(), [again, stored].sort(), 'a duplicate is still legal: the user decided')

    await page.getByRole('tab', { name: /^Health/ }).click()
    const finding = page.locator('.mm-finding', { hasText: again })
    await finding.waitFor()
    assert.match(await finding.locator('.mm-meta b').textContent(), /^Duplicates$/)
    assert.deepEqual((await finding.locator('li').allTextContents()).sort(), [again, stored].sort())
    await finding.evaluate((el) => el.scrollIntoView({ block: 'center' }))
    await shot('panel-health.png', 'the Health view: the duplicate pair with its fix, next to the other findings of the 300-entry store')
    await finding.getByRole('button', { name: 'Consolidate…' }).click()
    await dialog.waitFor()
    assert.deepEqual((await dialog.locator('.mm-full').allTextContents()).sort(), [again, stored].sort(), 'both full texts, to be removed')
    assert.equal(await dialog.locator('textarea').inputValue(), again, 'the newest wording is kept')
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await waitFor(async () => (await page.locator('.mm-finding', { hasText: again }).count()) === 0, 'the finding gone')
    const row = (await audit(5)).find((r) => r.action === 'consolidate-add')
    assert.equal(row?.outcome, 'allowed-once (via panel, writePolicy ask)')
    assert.equal(row?.text, again)
    assert.deepEqual(
      await withStore(async (s) =>
        s
          .listEntries()
          .filter((e) => e.text.startsWith('edit-me-token'))
          .map((e) => e.text),
      ),
      [again],
    )
    await page.getByRole('tab', { name: 'Entries' }).click()
  },
)

step(
  "panel history, Undo and Sessions: an entry's versions; an undo confirmed in the panel and audited (via panel); what a session was given beside what the next would get",
  async () => {
    const thursdays = 'history-token: deploys go out on Thursdays'
    const fridays = 'history-token: deploys go out on Fridays, never on Thursdays'
    // The page's session and its keys, as the panel itself asks for them (the harness holds
    // more than one session by now; the page shows one of them).
    const asked = page.waitForResponse((r) => r.url().includes('/api/memento/entries?'))
    await page.getByRole('button', { name: 'Refresh' }).click()
    const view = (await (await asked).json()).session
    assert.deepEqual([view.live, view.workspaceKey], [true, workspaceKeyOf(CWD)])
    const keys = { workspaceKey: view.workspaceKey, agentKey: view.agentKey }
    const { add, replace } = await withStore(async (s) => {
      // An earlier session of this workspace and agent, given the store as it is now (what the
      // plugin records when a session starts); then a fact written and rewritten elsewhere.
      s.snapshotRecord('session-e2e-earlier', snapshotFor(s, keys, DEFAULT_CONFIG), keys)
      const add = await s.add({ track: 'user', scope: 'workspace', text: thursdays }, writer)
      const replace = await s.replace({ track: 'user', scope: 'workspace', match: 'history-token', text: fridays }, writer)
      return { add, replace }
    })
    const seqOf = async (action, text) => (await audit(10)).find((r) => r.action === action && r.text === text).seq

    // History: every version, oldest first, with the change that made each.
    await search('history-token')
    assert.deepEqual(await texts(), [fridays])
    await page.getByRole('button', { name: 'History', exact: true }).click()
    const history = page.getByRole('dialog', { name: 'History of this entry' })
    await history.waitFor()
    assert.deepEqual(await history.locator('.mm-full').allTextContents(), [thursdays, fridays])
    const heads = await history.locator('.mm-version .mm-label').allTextContents()
    assert.match(heads[0], new RegExp(`^Version 1 · add · change #${await seqOf('add', thursdays)} · `))
    assert.match(heads[1], new RegExp(`^Version 2 · replace · change #${await seqOf('replace', fridays)} · `))
    assert.equal(await history.locator('[data-ended]').textContent(), 'In memory now as version 2.')
    assert.equal(add.entry.id, replace.entry.id)
    await shot('panel-history.png', "an entry's history: each version, oldest first, with the change that made it and who approved it")
    await history.getByRole('button', { name: 'Close' }).click()
    await history.waitFor({ state: 'hidden' })

    // Undo from the audit view: the whole inverse change, confirmed, then written with its digest.
    await page.getByRole('tab', { name: 'Audit' }).click()
    const replaced = page.locator(`.mm-audit[data-seq="${await seqOf('replace', fridays)}"]`)
    await replaced.waitFor()
    const added = page.locator(`.mm-audit[data-seq="${await seqOf('add', thursdays)}"]`)
    assert.equal(await added.getByRole('button', { name: 'Undo' }).isDisabled(), true, 'the add is changed since: undo the replace first')
    assert.match(await added.getByRole('button', { name: 'Undo' }).getAttribute('title'), /changed|contains/)
    await replaced.getByRole('button', { name: 'Undo' }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.waitFor()
    assert.equal(await dialog.locator('h3').textContent(), 'Undo this change?')
    assert.equal(
      await dialog.locator('[data-reverts]').textContent(),
      `Undoes change #${await seqOf('replace', fridays)}: every entry goes back to exactly what it was.`,
    )
    assert.deepEqual(await dialog.locator('.mm-full').allTextContents(), [fridays, thursdays], 'from and to, in full')
    assert.equal(await dialog.locator('.mm-full.mm-gone').count(), 1, 'the text it takes back is struck through')
    await shot(
      'panel-undo.png',
      'Undo on an audit row: the confirmation shows the whole inverse change (from, to) before anything is written',
    )
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await waitFor(async () => (await page.locator('.mm-modal').isHidden()) && (await audit(1))[0].text === thursdays, 'the undo landed')
    const [row] = await audit(1)
    assert.deepEqual([row.action, row.outcome, row.entryId], ['replace', 'allowed-once (via panel, writePolicy ask)', add.entry.id])
    await page.getByRole('tab', { name: 'Entries' }).click()
    await waitFor(async () => JSON.stringify(await texts()) === JSON.stringify([thursdays]), 'the entry back as it was')
    assert.ok(await withStore(async (s) => s.auditVerify().ok), 'the audit chain verifies')

    // Sessions: what the earlier session was given beside what the next session would get.
    await page.getByRole('tab', { name: 'Sessions' }).click()
    await page.locator('.mm-session').first().waitFor()
    assert.deepEqual(await page.locator('.mm-session span').allTextContents(), ['session-e2e-earlier'])
    await page.locator('.mm-session', { hasText: 'session-e2e-earlier' }).click()
    const given = page.locator('[data-side="given"]')
    await waitFor(async () => (await given.locator('.mm-label').textContent()).includes('session-e2e-earlier'), 'the earlier session shown')
    const next = page.locator('[data-side="next"]')
    const lines = async (side) => (await side.locator('.mm-ln').allTextContents()).map((l) => (l === ' ' ? '' : l)).join('\n')
    assert.equal(
      await lines(next),
      await withStore(async (s) => snapshotFor(s, keys, DEFAULT_CONFIG)),
      'what the next session would get: the snapshot of the same keys, now',
    )
    const fresh = await next.locator('.mm-ln.mm-new').allTextContents()
    assert.equal(fresh.length, 2, fresh.join('\n'))
    assert.match(fresh[0], /^## User preferences for this workspace — \d+\/100000 chars used$/, 'its heading, with the layer’s budget use')
    assert.equal(fresh[1], `- ${thursdays}`)
    assert.equal(await given.locator('.mm-ln.mm-old').count(), 1, "the earlier session's heading, whose usage changed")
    // Each side scrolled to its first marked line, the list of sessions kept in view.
    for (const line of [next.locator('.mm-ln.mm-new').first(), given.locator('.mm-ln.mm-old')])
      await line.evaluate((el) => {
        const pre = el.closest('pre')
        pre.scrollTop += el.getBoundingClientRect().top - pre.getBoundingClientRect().top - 60
      })
    await page.locator('.mm-scroll').evaluate((el) => el.scrollTo(0, 0))
    await shot(
      'panel-sessions.png',
      'the Sessions view: what an earlier session was given beside what the next session would get, with each layer’s budget use in its heading; the lines that changed marked',
    )
    await page.getByRole('tab', { name: 'Entries' }).click()
  },
)

step('panel refresh and Escape: a change made elsewhere appears by itself; Escape closes the drawer', async () => {
  await search('')
  await withStore((s) =>
    s.add({ track: 'user', scope: 'user-global', text: 'written-elsewhere: by the CLI, while the panel is open' }, writer),
  )
  await waitFor(async () => (await texts()).includes('written-elsewhere: by the CLI, while the panel is open'), 'the auto-refresh', 10_000)
  await page.keyboard.press('Escape')
  assert.equal(await page.locator('.mm-drawer').isHidden(), true)
})

step("panel refused write: a session whose approval policy is never (dsh's Full access) refuses panel writes and says why", async () => {
  const preset = async (from, to) => {
    await page.getByText(from, { exact: true }).first().click()
    await page.getByRole('menuitem', { name: to }).click()
  }
  await preset('Workspace Write', 'Full access')
  await page.getByText('I understand the risks and want to continue').click()
  await page.getByRole('button', { name: 'Enable Full access' }).click()
  await page.locator('.mm-open').click()
  await search('added-in-panel')
  await page.getByRole('button', { name: 'Remove', exact: true }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click()
  await page.locator('.mm-banner').waitFor({ state: 'visible' })
  assert.equal(await page.locator('.mm-banner b').textContent(), 'WRITE_DENIED')
  assert.match(await page.locator('.mm-banner small').textContent(), /approval policy is "never"/)
  assert.deepEqual(await texts(), ['added-in-panel: prefers short answers'], 'the entry is still there')
  assert.equal((await audit(3)).find((r) => r.action === 'remove-denied')?.outcome, 'rejected (via panel, session approval policy never)')
  await shot(
    'panel-refused-never.png',
    "a remove refused because the session runs with dsh's Full access preset (approval policy never): WRITE_DENIED with the advice",
  )
  await page.keyboard.press('Escape')
  await preset('Full access', 'Workspace Write')
})

step(
  'panel write routes: same-origin POST with the page token only; GET, foreign origins, no token and hostile queries refused; the panel modules served from a fixed list only',
  async () => {
    const token = await page.evaluate(async () => (await (await fetch('/api/memento/panel')).json()).token)
    const [session] = sessionIds() // the page's session: the only one there is
    const body = JSON.stringify({ op: 'add', session, track: 'user', scope: 'user-global', text: 'forged-write: must never land' })
    const own = {
      host: `127.0.0.1:${PORT}`,
      origin: BASE,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/json',
      'x-memento-token': token,
    }
    const refused = {
      'GET with the token': [{ method: 'GET', headers: own }, 405],
      'a foreign Origin': [{ method: 'POST', headers: { ...own, origin: 'http://evil.example' }, body }, 403],
      'a cross-site fetch': [{ method: 'POST', headers: { ...own, 'sec-fetch-site': 'cross-site' }, body }, 403],
      'a same-site (other port) fetch': [
        { method: 'POST', headers: { ...own, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' }, body },
        403,
      ],
      'a rebound Host': [
        { method: 'POST', headers: { ...own, host: `evil.example:${PORT}`, origin: `http://evil.example:${PORT}` }, body },
        403,
      ],
      'no Origin': [{ method: 'POST', headers: { ...own, origin: undefined }, body }, 403],
      'a form post': [{ method: 'POST', headers: { ...own, 'content-type': 'application/x-www-form-urlencoded' }, body }, 403],
      'no token': [{ method: 'POST', headers: { ...own, 'x-memento-token': undefined }, body }, 403],
      'a forged token': [{ method: 'POST', headers: { ...own, 'x-memento-token': `${token.split('.')[0]}.AAAA` }, body }, 403],
    }
    for (const [what, [req, status]] of Object.entries(refused)) {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([, v]) => v !== undefined))
      const r = await raw('/api/memento/write', { ...req, headers })
      assert.equal(r.status, status, `${what}: ${r.body.slice(0, 120)}`)
    }
    // From the browser itself: a GET is refused, a token-less POST too.
    const inPage = await page.evaluate(
      async (b) => [
        (await fetch('/api/memento/write')).status,
        (await fetch('/api/memento/write', { method: 'POST', headers: { 'content-type': 'application/json' }, body: b })).status,
      ],
      body,
    )
    assert.deepEqual(inPage, [405, 403])
    assert.ok(!(await withStore(async (s) => s.listEntries().some((e) => e.text.includes('forged-write')))), 'no refused request wrote')
    // Hostile query strings: always a JSON answer, never a crash, never another page's data.
    for (const q of [
      'text=%00%01',
      'limit=-5&offset=-1',
      'offset=1e99&limit=1e99',
      'layer=../../etc',
      'text=' + 'x'.repeat(5000),
      'text=%E0%A4%A',
      'workspace=%27%20OR%201=1--',
      'agent[]=1&session=%3Cscript%3E',
      'text=%F0%9F%A7%A0',
    ]) {
      const r = await raw(`/api/memento/entries?${q}`, { headers: { host: `127.0.0.1:${PORT}` } })
      assert.ok(r.status === 200 || r.status === 400, `${q}: ${r.status} ${r.body.slice(0, 200)}`)
      const j = JSON.parse(r.body)
      if (r.status === 200) assert.ok(Array.isArray(j.entries) && j.entries.length <= 200, q)
      else assert.equal(typeof j.error.code, 'string')
    }
    const sql = JSON.parse((await raw(`/api/memento/entries?workspace=%27%20OR%201=1--`, { headers: { host: `127.0.0.1:${PORT}` } })).body)
    assert.equal(sql.total, 0)
    // The panel's modules through the real server: the listed ones exactly as client/ holds them, nothing else.
    const host = { host: `127.0.0.1:${PORT}` }
    const mod = await raw('/api/memento/client/panel.js', { headers: host })
    assert.deepEqual([mod.status, mod.body], [200, readFileSync(join(ROOT, 'client', 'panel.js'), 'utf8')])
    for (const path of [
      '/api/memento/client/..%2f..%2fpackage.json',
      '/api/memento/client/%2e%2e%2f%2e%2e%2fpackage.json',
      '/api/memento/client/nope.js',
      '/api/memento/client/../../package.json',
      '/api/memento/client/%2e%2e/%2e%2e/package.json',
    ]) {
      const r = await raw(path, { headers: host })
      assert.doesNotMatch(r.body, /"name": "dsh-memento"/, path)
      if (!path.includes('/../') && !path.includes('/%2e%2e/')) assert.equal(r.status, 404, path) // (dot segments are resolved before routing: dsh's page answers those)
    }
  },
)

step("panel dark: dsh web's dark theme carries into the drawer", async () => {
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.reload()
  await page.locator('.mm-open').click()
  await waitFor(() => page.evaluate(() => document.querySelectorAll('.mm-entry').length > 0), 'entries')
  const [dark, bg] = await page.evaluate(() => [
    document.body.hasAttribute('data-ds-dark-theme'),
    getComputedStyle(document.querySelector('.mm-drawer')).backgroundColor,
  ])
  assert.equal(dark, true, 'dsh web is dark')
  const [r, g, b] = bg.match(/\d+/g).map(Number)
  assert.ok(r + g + b < 150, `the drawer is dark too: ${bg}`)
  await shot('panel-dark.png', "the same drawer in dsh web's dark theme (the --dsw-* tokens)")
  await page.emulateMedia({ colorScheme: 'light' })
})

step('panel refused write: under writePolicy off the panel shows the protocol code and advice, and nothing is written', async () => {
  await startWeb('panel-off')
  await openPanel()
  await search('added-in-panel')
  await page.getByRole('button', { name: 'Remove', exact: true }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click()
  const banner = page.locator('.mm-banner')
  await banner.waitFor({ state: 'visible' })
  assert.equal(await banner.locator('b').textContent(), 'WRITE_DENIED')
  assert.match(await banner.textContent(), /writePolicy off/)
  assert.deepEqual(await texts(), ['added-in-panel: prefers short answers'], 'the entry is still there')
  const denied = (await audit(5)).find((r) => r.action === 'remove-denied')
  assert.equal(denied?.outcome, 'rejected (via panel, writePolicy off)')
  await shot('panel-refused.png', 'a remove refused under writePolicy off: WRITE_DENIED with the reason and advice; the entry stays')
})

step('panel zh: every label in Chinese from the first paint', async () => {
  await startWeb('panel-zh')
  await page.addInitScript(() => {
    const seen = []
    window.__memFirst = seen
    new MutationObserver(() => {
      const b = document.querySelector('#dsh-memento-panel .mm-open')
      if (b && seen.at(-1) !== b.textContent) seen.push(b.textContent)
    }).observe(document, { childList: true, subtree: true, characterData: true })
  })
  await openPanel()
  assert.deepEqual(await page.evaluate(() => window.__memFirst), ['🧠 记忆'], 'the button never said "Memory"')
  assert.equal(await page.locator('.mm-title').textContent(), '记忆')
  assert.equal(await page.locator('.mm-search').getAttribute('placeholder'), '搜索全部条目…')
  assert.deepEqual(
    (await page.locator('.mm-tab').allTextContents()).map((t) => t.replace(/ \(\d+\)$/, '')),
    ['条目', '提案', '审计', '健康', '会话'],
  )
  assert.match(await page.locator('.mm-budgets-title').textContent(), /的预算$/)
  assert.equal(await page.locator('.mm-count').textContent(), `共 ${await withStore(async (s) => s.listEntries().length)} 条`)
  await shot('panel-zh.png', 'language: zh — the button, header, budgets, layers, filters and actions in Chinese')
})
