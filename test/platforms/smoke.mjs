#!/usr/bin/env node
// Plain-node smoke of the real native provider through the package entry (../../index.mjs), for
// the platforms the suite cannot run on natively (qemu, musl, Wine, a bare macOS/Windows box).
// No test runner, no dependencies: it opens a fresh store in a temp dir, writes through the gate,
// reads back (ASCII and CJK), checks budgets and the audit chain, then reopens the file.
//
//   node test/platforms/smoke.mjs
//   MEMENTO_SMOKE_EXPECT=memento.linux-arm64-musl.node node test/platforms/smoke.mjs
//   MEMENTO_SMOKE_PACKAGE=/x/node_modules/dsh-memento node test/platforms/smoke.mjs
//
// Prints one line per step and ends with `smoke: N passed, M failed`; exits 1 on any failure.
// With MEMENTO_SMOKE_EXPECT set, the basename of the loaded .node file must equal it; with
// MEMENTO_SMOKE_PACKAGE, the smoke imports that installed package instead of this checkout.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..', '..')
const require = createRequire(import.meta.url)

// Windows and macOS file systems are case-insensitive by default; tmpdir may be a symlink (macOS)
// or an 8.3 short name (Windows), so paths are compared by their real, case-folded form.
const samePath = (p) => {
  const real = fs.realpathSync.native(path.resolve(p))
  return process.platform === 'win32' || process.platform === 'darwin' ? real.toLowerCase() : real
}

let passed = 0
let failed = 0
let aborted = false

async function step(name, fn) {
  if (aborted) {
    failed++
    console.log(`SKIP ${name} (an earlier step it needs failed)`)
    return
  }
  try {
    const note = await fn()
    passed++
    console.log(`ok   ${name}${note ? ` — ${note}` : ''}`)
  } catch (e) {
    failed++
    const msg = String(e?.stack ?? e)
      .split('\n')
      .slice(0, 6)
      .join('\n       ')
    console.log(`FAIL ${name}: ${msg}`)
  }
}

/** Steps after a failed prerequisite are reported as failed, never silently dropped. */
async function required(name, fn) {
  const before = failed
  await step(name, fn)
  if (failed !== before) aborted = true
}

function finish() {
  console.log(`smoke: ${passed} passed, ${failed} failed`)
  process.exitCode = failed === 0 ? 0 : 1
}

console.log(`platform: ${process.platform} ${process.arch}, node ${process.version}`)

let m
let provider
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-smoke-'))
const dbPath = path.join(dir, 'memory.db')
const cwd = path.join(dir, 'workspace')
const write = { agent: { session: { id: 'smoke-session-1', header: { cwd, agentPreset: 'coder' } } } }
const asked = []
let answer = 'allowed-once'
const gate = async (payload) => {
  asked.push(payload)
  return answer
}
let wsKey
const texts = {
  ascii: 'Prefers pnpm for installs',
  asciiNew: 'Prefers pnpm 9 for installs',
  cjk: '用户喜欢简洁的回答',
  agent: 'Run cargo fmt before committing',
}
let auditBefore

const entry = path.join(process.env.MEMENTO_SMOKE_PACKAGE || root, 'index.mjs')
await required(`load ${entry}`, async () => {
  m = await import(pathToFileURL(entry).href)
  assert.equal(typeof m.MemoryProvider, 'function')
  const nodes = Object.keys(require.cache).filter((k) => k.endsWith('.node'))
  assert.ok(nodes.length > 0, 'no .node file in require.cache')
  for (const f of nodes) console.log(`loaded: ${f}`)
  const expect = process.env.MEMENTO_SMOKE_EXPECT
  if (expect) {
    assert.ok(
      nodes.some((f) => path.basename(f) === expect),
      `expected ${expect}, loaded ${nodes.map((f) => path.basename(f)).join(', ')}`,
    )
  }
  return nodes.map((f) => path.basename(f)).join(', ')
})

await required('open a fresh store', async () => {
  fs.mkdirSync(cwd)
  provider = new m.MemoryProvider({ dbPath, gate })
  assert.ok(fs.existsSync(dbPath), 'store file created')
  assert.equal(samePath(provider.path), samePath(dbPath), `provider.path ${provider.path}`)
  wsKey = m.workspaceKeyOf(cwd)
  assert.ok(wsKey.length > 0, 'workspace key of the cwd')
  assert.equal(provider.listEntries().length, 0)
  assert.equal(provider.auditVerify().ok, true)
  return dbPath
})

await required('add (gate answers allowed-once)', async () => {
  const { entry, usage } = await provider.add({ track: 'user', scope: 'workspace', text: texts.ascii }, write)
  assert.equal(asked.length, 1, 'gate asked once')
  assert.equal(asked[0].action, 'add')
  assert.equal(asked[0].text, texts.ascii)
  assert.equal(entry.text, texts.ascii)
  assert.equal(entry.track, 'user')
  assert.equal(entry.scope, 'workspace')
  assert.equal(entry.workspaceKey, wsKey)
  assert.equal(entry.agentKey, 'coder')
  assert.equal(entry.sessionId, 'smoke-session-1')
  assert.equal(entry.version, 1)
  assert.deepEqual(usage, { track: 'user', scope: 'workspace', used: texts.ascii.length, limit: 2000 })
  return entry.id
})

await required('add CJK and an agent entry', async () => {
  const a = await provider.add({ track: 'user', scope: 'user-global', text: texts.cjk }, write)
  assert.equal(a.entry.text, texts.cjk)
  assert.equal(a.entry.workspaceKey, '')
  assert.deepEqual(a.usage, { track: 'user', scope: 'user-global', used: 9, limit: 2000 })
  const b = await provider.add({ track: 'agent', scope: 'workspace', text: texts.agent, tags: ['rust'] }, write)
  assert.deepEqual(b.entry.tags, ['rust'])
  assert.equal(provider.listEntries().length, 3)
})

await step('a refused gate answer is WRITE_DENIED and writes nothing', async () => {
  answer = 'rejected'
  try {
    const err = await provider.add({ track: 'user', scope: 'workspace', text: 'Never stored' }, write).then(
      () => assert.fail('expected WRITE_DENIED'),
      (e) => e,
    )
    assert.equal(err.code, 'WRITE_DENIED', err.message)
    assert.ok(m.isMemoryError(err))
    assert.equal(provider.listEntries().length, 3)
  } finally {
    answer = 'allowed-once'
  }
})

const keys = () => ({ agentKey: 'coder', workspaceKey: wsKey })

await step('query ASCII, case-insensitive', async () => {
  for (const q of ['PNPM', 'pnpm', 'PnPm For']) {
    const r = provider.query({ text: q }, keys())
    assert.equal(r.total, 1, q)
    assert.equal(r.entries[0].text, texts.ascii, q)
    assert.equal(r.truncated, false)
  }
  assert.equal(provider.query({ text: 'yarn' }, keys()).total, 0)
})

await step('query CJK', async () => {
  const r = provider.query({ text: '简洁' }, keys())
  assert.equal(r.total, 1)
  assert.equal(r.entries[0].text, texts.cjk)
  assert.equal(provider.query({ text: '冗长' }, keys()).total, 0)
})

await step('query by track and visibility', async () => {
  assert.equal(provider.query({ track: 'agent' }, keys()).total, 1)
  assert.equal(provider.query({}, keys()).total, 3)
  // Another workspace sees only the user-global entry.
  const other = provider.query({}, { agentKey: 'coder', workspaceKey: m.workspaceKeyOf(path.join(dir, 'elsewhere')) })
  assert.deepEqual(
    other.entries.map((e) => e.text),
    [texts.cjk],
  )
})

await step('replace', async () => {
  const before = asked.length
  const r = await provider.replace({ track: 'user', scope: 'workspace', match: 'PNPM', text: texts.asciiNew }, write)
  assert.equal(asked.length, before + 1)
  assert.equal(asked.at(-1).action, 'replace')
  assert.equal(r.previous.text, texts.ascii)
  assert.equal(r.entry.text, texts.asciiNew)
  assert.equal(r.entry.id, r.previous.id)
  assert.equal(r.entry.version, 2)
  assert.equal(r.usage.used, texts.asciiNew.length)
  assert.equal(provider.query({ text: 'pnpm 9' }, keys()).entries[0].text, texts.asciiNew)
})

await step('remove', async () => {
  const r = await provider.remove({ track: 'agent', scope: 'workspace', match: 'cargo fmt' }, write)
  assert.equal(asked.at(-1).action, 'remove')
  assert.equal(r.entry.text, texts.agent)
  assert.equal(r.usage.used, 0)
  assert.equal(provider.query({ track: 'agent' }, keys()).total, 0)
  assert.equal(provider.listEntries().length, 2)
})

await step('budgets (used/limit)', async () => {
  const rows = provider.budgets({ workspaceKey: wsKey })
  const got = Object.fromEntries(rows.map((r) => [`${r.track}/${r.scope}`, [r.used, r.limit]]))
  assert.deepEqual(got, {
    'user/user-global': [9, m.DEFAULT_BUDGETS.user.userGlobal],
    'user/workspace': [texts.asciiNew.length, m.DEFAULT_BUDGETS.user.workspace],
    'agent/user-global': [0, m.DEFAULT_BUDGETS.agent.userGlobal],
    'agent/workspace': [0, m.DEFAULT_BUDGETS.agent.workspace],
  })
  return JSON.stringify(got)
})

await step('auditVerify', async () => {
  const rows = provider.auditList(1000)
  const actions = rows.map((r) => r.action).reverse()
  assert.deepEqual(actions, ['add', 'add', 'add', 'add-denied', 'replace', 'remove'])
  const v = provider.auditVerify()
  assert.equal(v.ok, true, JSON.stringify(v))
  assert.equal(v.checked, rows.length)
  assert.equal(v.firstBroken, null)
  assert.match(v.head, /^[0-9a-f]{16,}$/)
  auditBefore = v
  return `${v.checked} rows, head ${v.head.slice(0, 12)}…`
})

await step('close', async () => {
  provider.close()
  provider.close() // idempotent
  assert.throws(
    () => provider.listEntries(),
    (e) => e.code === 'STORE_CORRUPT',
  )
})

await step('reopen the same file', async () => {
  const again = new m.MemoryProvider({ dbPath, gate })
  try {
    const texts2 = again
      .listEntries()
      .map((e) => e.text)
      .sort()
    assert.deepEqual(texts2, [texts.asciiNew, texts.cjk].sort())
    assert.equal(again.query({ text: '简洁' }, keys()).total, 1)
    const v = again.auditVerify()
    assert.equal(v.ok, true, JSON.stringify(v))
    assert.equal(v.checked, auditBefore.checked)
    assert.equal(v.head, auditBefore.head)
    return `${texts2.length} entries, audit ${v.checked} rows ok`
  } finally {
    again.close()
  }
})

try {
  fs.rmSync(dir, { recursive: true, force: true })
} catch {
  // best effort (Windows may hold the file a moment longer)
}
finish()
