// End-to-end tests in the REAL pinned harness (@deepseek-ai/dsh@0.1.0-rc.8): the packed plugin
// is installed with `dsh plugin add <tarball>` into a scratch $DSH_HOME and driven by real
// agent turns against a loopback fake model (e2e/fake-llm.mjs) and by a driver plugin that
// calls the harness registries (e2e/driver.mjs). Run with `npm run test:e2e` (e2e/run.sh
// installs the harness through .ci/harness.sh and puts Node >= 22 first on PATH).
//
// Environment:
//   E2E_TARBALL   a packed plugin to test (default: `npm pack` of this checkout, which needs this
//                 machine's memento.<platform>.node next to index.mjs)
//   E2E_WORK      scratch dir (default: a fresh mkdtemp; kept on failure for inspection)
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import http from 'node:http'
import { cpSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import {
  CWD,
  E2E,
  env,
  HOME,
  ok,
  overlay,
  PKG,
  profileJson,
  scratch,
  sessionEvents,
  sessionIds,
  sh,
  stageTarball,
  turn,
  drive,
} from './lib.mjs'
import { waitFor } from '../test/support/wait.mjs'

const timings = []
const t0 = Date.now()
before(() => {
  mkdirSync(CWD, { recursive: true })
  const tarball = stageTarball()
  for (const profile of ['headless', 'web']) {
    ok(sh('dsh', ['plugin', '--profile', profile, 'add', tarball], { timeout: 300_000 }), `dsh plugin --profile ${profile} add`)
    for (const f of ['driver.mjs', 'answerer.mjs']) cpSync(join(E2E, f), join(HOME, 'profiles', profile, f))
  }
  timings.push(['setup (pack + 2x plugin add)', Date.now() - t0])
})
after(() => {
  process.stderr.write(`e2e timings (ms): ${JSON.stringify(Object.fromEntries(timings))}; total ${Date.now() - t0}\n`)
  scratch.finish()
})
const step = (name, opts, fn) =>
  test(name, opts, async (t) => {
    const start = Date.now()
    try {
      await fn(t)
    } catch (e) {
      scratch.fail()
      throw e
    } finally {
      timings.push([name.split(':')[0], Date.now() - start])
    }
  })

step('install: the tarball registers as a bundle and its row is composed', {}, () => {
  const p = profileJson('headless')
  assert.ok(p.dependencies[PKG], 'dependency recorded')
  assert.ok(p.dsh.profile.bundles.includes(PKG), 'bundle registered')
  const dump = ok(sh('dsh', ['--profile', 'headless', '--dump-config']), 'dump-config').stdout
  assert.match(dump, /^# == dsh-memento$/m)
  assert.match(dump, /- id: memento\n {2}name: dsh-memento/)
})

step('smoke: ctx.memory, tools, /memory and the snapshot section are live; no gate bypass', {}, () => {
  const out = drive(['/memory list'])
  assert.equal(out.memoryService, true)
  for (const k of ['store', 'gate', 'provider']) assert.ok(!out.memoryKeys.includes(k), `ctx.memory.${k} must not exist`)
  assert.deepEqual(out.tools, ['memory', 'memory_recall'])
  assert.equal(out.toolInSchemas, true)
  assert.equal(out.commandListed, true)
  assert.deepEqual(out.toolQuery, { isError: false, value: { action: 'query', ok: true, entries: [], total: 0, truncated: false } })
  assert.deepEqual(out.byLine['/memory list'], { kind: 'success', text: 'Memory is empty.' })
  assert.equal(out.snapshot, '', 'empty store → empty section')
  assert.equal(out.recall.isError, false, out.recall.error)
  assert.equal(out.recall.value.ok, true)
  assert.equal(out.recall.value.history.available, out.recall.sessionQuery, JSON.stringify(out.recall))
  assert.equal(out.config.schemastery, true, 'Config is a Schemastery schema inside dsh')
  assert.equal(out.config.defaults.writePolicy, 'ask')
  assert.equal(out.config.defaults.recall.windowDays, 30)
  assert.ok(out.adapters.includes('mem0'))
})

step('invalid config: boot fails loudly, naming the key', {}, () => {
  const r = sh('dsh', ['--profile', 'headless', ...overlay('hmr'), ...overlay('driver'), ...overlay('bad-config')], { cwd: CWD })
  assert.notEqual(r.code, 0)
  assert.match(r.stdout + r.stderr, /memento|dsh-memento/)
  assert.match(r.stdout + r.stderr, /snapshotOrder|language|invalid config/)
})

step('approved write: a model tool call, approved by the user, lands and is audited', {}, async () => {
  const known = sessionIds()
  const r = ok(
    await turn('remember that I like tea', { toolArgs: { action: 'add', text: 'user likes tea' }, overlays: overlay('answerer') }),
    'turn',
  )
  assert.equal(r.stdout.trim(), 'ok')
  assert.deepEqual(r.toolMessages, ['memory entry added (user/workspace): user likes tea\nbudget: 14/2000 chars used'])
  const asked = sessionEvents(known).filter((e) => e.type === 'approval/asked')
  assert.equal(asked.length, 1)
  assert.equal(asked.at(-1).data.toolName, 'memory')
  // The card shows the whole change: the entry's layer, workspace, agent, source, tags and text.
  assert.match(
    asked.at(-1).data.reason,
    /^\[dsh-memento\] add user\/workspace\nnew: user\/workspace · workspace \S+ · (every agent|agent \S+) · source memory-tool · no tags\n│ user likes tea$/,
  )
  const out = drive(['/memory list', '/memory audit'])
  assert.match(out.byLine['/memory list'].text, /^Memory entries \(1\):\n- \[user\/workspace @[^\]]+\] user likes tea$/)
  assert.match(out.byLine['/memory audit'].text, / add user\/workspace allowed-once \(via approval, writePolicy ask\) \(memory-tool\)/)
})

step('next session: the system prompt carries the frozen snapshot', {}, async () => {
  const r = ok(await turn('hello again'), 'turn')
  const system = r.requests.find((b) => b.tools?.length)?.messages?.[0]?.content ?? ''
  assert.ok(system.includes('[dsh-memento: frozen memory snapshot — captured at session start;'), 'snapshot header in the system prompt')
  assert.ok(system.includes('## User preferences for this workspace — 14/2000 chars used\n- user likes tea'), system.slice(0, 2000))
  // Model-visible ⟺ reconstructable: the store's `snapshot` row holds exactly what the model saw.
  const { MemoryProvider } = await import('../index.mjs')
  const store = new MemoryProvider({ dbPath: join(HOME, 'dsh-memento', 'memory.db'), gate: async () => 'rejected' })
  try {
    const snapshots = store.auditList(1000).filter((row) => row.action === 'snapshot' && row.text.includes('user likes tea'))
    assert.ok(snapshots.length >= 1, 'the sessions that saw the entry have snapshot rows')
    assert.equal(new Set(snapshots.map((row) => row.sessionId)).size, snapshots.length, 'one snapshot row per session')
    assert.ok(
      snapshots.some((row) => system.includes(row.text)),
      'an audited snapshot is byte-identical to the prompt section',
    )
    assert.ok(store.auditVerify().ok, 'the audit chain verifies')
  } finally {
    store.close()
  }
})

step('denied write: no answerer → unavailable, nothing but the denied row', {}, async () => {
  const known = sessionIds()
  const r = ok(await turn('remember that I hate rain', { toolArgs: { action: 'add', text: 'user hates rain' } }), 'turn')
  assert.equal(r.toolMessages.length, 1)
  assert.match(r.toolMessages[0], /^memory add failed: memory write not approved \(approval outcome: unavailable\)/)
  assert.deepEqual(
    sessionEvents(known)
      .filter((e) => e.type === 'approval/decided')
      .map((e) => e.data.outcome),
    ['unavailable'],
  )
  const out = drive(['/memory query rain', '/memory audit'])
  assert.equal(out.byLine['/memory query rain'].text, 'No entry contains "rain".')
  const rows = out.byLine['/memory audit'].text.split('\n').filter((l) => l.includes('rain') || l.includes('-denied'))
  assert.equal(rows.length, 1, out.byLine['/memory audit'].text)
  // The denied row names the text that was refused (the audit shows each row's text).
  assert.match(rows[0], / add-denied user\/workspace unavailable \(via approval, writePolicy ask\) \(memory-tool\): user hates rain$/)
})

step("writePolicy auto: the user's own patch approves model writes with no answerer", {}, async () => {
  const known = sessionIds()
  const r = ok(
    await turn('remember green tea', {
      toolArgs: { action: 'add', scope: 'user-global', text: 'prefers green tea' },
      overlays: overlay('auto'),
    }),
    'turn',
  )
  assert.equal(r.toolMessages.length, 1)
  assert.match(r.toolMessages[0], /^memory entry added \(user\/user-global\): prefers green tea\n/)
  assert.deepEqual(
    sessionEvents(known)
      .filter((e) => e.type === 'approval/decided')
      .map((e) => e.data.outcome),
    ['allowed-once'],
  )
  const out = drive(['/memory audit'])
  assert.match(out.byLine['/memory audit'].text, / add user\/user-global allowed-once \(via approval, writePolicy auto\) \(memory-tool\)/)
})

step("/memory: every subcommand through ctx.commands.execute, the user's whitespace kept", {}, () => {
  const lines = [
    '/memory add --track=agent  build with   `cargo build --release`',
    '/memory add --track=agent --scope=user-global tabs, not spaces',
    '/memory query CARGO',
    '/memory budgets',
    '/memory consolidate --track=agent --scope=user-global tabs => tabs (width 2)',
    '/memory remove --track=agent cargo',
    '/memory export',
    '/memory proposals',
    '/memory adapters',
    '/memory audit',
    '/memory nope',
  ]
  const out = drive(lines)
  // memory_recall's history half finds the earlier "tea" sessions through sessionQuery.
  if (out.recall.sessionQuery)
    assert.ok(
      out.recall.value.history.sessions.some((x) => x.snippets.some((t) => /tea/i.test(t))),
      JSON.stringify(out.recall.value.history),
    )
  const r = out.byLine
  assert.deepEqual(r[lines[0]], {
    kind: 'success',
    text: `Added (agent/workspace): build with   \`cargo build --release\`\nLayer usage: 36/4000`,
  })
  assert.match(r[lines[2]].text, /^Matches \(1\):\n- \[agent\/workspace @\S+\] build with {3}`cargo build --release`$/)
  assert.match(
    r[lines[3]].text,
    /^Budget usage:\n- user\/user-global: \d+\/2000\n- user\/workspace: \d+\/2000\n- agent\/user-global: 16\/4000\n- agent\/workspace: 36\/4000$/,
  )
  assert.equal(r[lines[4]].text, 'Consolidated (agent/user-global): removed 1, added 1.\nNew entry: tabs (width 2)\nLayer usage: 14/4000')
  assert.equal(r[lines[5]].text, 'Removed (agent/workspace): build with   `cargo build --release`\nLayer usage: 0/4000')
  const doc = JSON.parse(r[lines[6]].text)
  assert.equal(doc.schema, 'memory-export-v1')
  assert.ok(doc.entries.some((e) => e.text === 'tabs (width 2)'))
  assert.equal(r[lines[7]].text, 'No pending memory proposals.')
  assert.match(r[lines[8]].text, /^Memory adapters \(\d+\):/)
  assert.match(r[lines[9]].text, / consolidate-add agent\/user-global allowed-once \(via command, writePolicy ask\) \(command\)/)
  assert.equal(r[lines[10]].kind, 'error')
  // Import what was exported, through the same command transport (one approval, one batch).
  const imp = drive([
    `/memory import ${JSON.stringify({ ...doc, entries: doc.entries.filter((e) => e.text === 'tabs (width 2)') })}`,
    '/memory list',
  ])
  assert.match(imp.commands[0].result.text, /^Imported 1 entries from the export document/)
  assert.equal(imp.commands[1].result.text.split('tabs (width 2)').length - 1, 2)
})

step('hot reload: a config change remounts cleanly, disable removes everything, re-enable restores', {}, () => {
  const { reload } = drive(['/memory add --scope=user-global survives reloads'], [], { E2E_RELOAD: '1' })
  const one = { memory: true, adapters: true, tools: ['memory', 'memory_recall'], commands: 1, sections: 1 }
  assert.deepEqual({ ...reload.before, description: undefined, list: undefined }, { ...one, description: undefined, list: undefined })
  assert.match(reload.before.description, /^Read and write/)
  assert.match(reload.zh.description, /^读写有界/)
  assert.equal(reload.zh.replaced, true)
  assert.match(reload.zh.list, /^记忆条目（\d+ 条）：[\s\S]*survives reloads/)
  assert.deepEqual(reload.disabled, { memory: false, adapters: false, tools: [], description: null, commands: 0, sections: 0, list: null })
  assert.match(reload.enabled.list, /^Memory entries \(\d+\):[\s\S]*survives reloads/, 'the reopened store still has the entries')
  assert.equal(reload.enabled.commands, 1)
})

/** One HTTP request with exactly these headers (fetch cannot set Host). */
function raw(port, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, setHost: false }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

step("panel: the read-only routes answer only the user's page, and the client bundle loads, under dsh web", {}, async () => {
  const port = 18990 + (process.pid % 500)
  const web = spawn('dsh', ['web', ...overlay('hmr'), '--no-open', '--port', String(port)], {
    cwd: CWD,
    env,
    stdio: 'ignore',
    detached: false,
  })
  try {
    const base = `http://127.0.0.1:${port}`
    const index = await waitFor(
      () =>
        fetch(`${base}/`).then(
          (r) => r.text(),
          () => null,
        ),
      'dsh web to answer',
      20_000,
      200,
    )
    const entries = await fetch(`${base}/api/memento/entries?limit=5`)
    assert.equal(entries.status, 200)
    assert.equal(entries.headers.get('content-type'), 'application/json; charset=utf-8')
    const body = await entries.json()
    assert.equal(body.language, 'en')
    const panel = await (await fetch(`${base}/api/memento/panel`)).json()
    assert.equal(panel.labels.open, '🧠 Memory', 'the panel is labelled from the strings table')
    assert.equal(body.budgets.length, 4)
    assert.ok(body.entries.some((e) => e.text === 'user likes tea'))
    const audit = await (await fetch(`${base}/api/memento/audit?limit=3`)).json()
    assert.ok(Array.isArray(audit.rows) && audit.rows.length <= 3)
    assert.deepEqual(await (await fetch(`${base}/api/memento/proposals`)).json(), { proposals: [], language: 'en' })
    // Only the user's own page reads the store: the same answers as dsh's own /api/sessions.
    const own = { host: `127.0.0.1:${port}`, origin: base, 'sec-fetch-site': 'same-origin' }
    const foreign = {
      'a rebound Host': { host: `evil.example:${port}` },
      'a foreign Origin': { ...own, origin: 'http://evil.example' },
      'a cross-site fetch': { ...own, 'sec-fetch-site': 'cross-site' },
    }
    for (const path of ['/api/memento/entries', '/api/memento/audit', '/api/memento/proposals']) {
      assert.equal((await raw(port, path, { headers: own })).status, 200, `${path}: same origin`)
      for (const [what, headers] of Object.entries(foreign)) {
        const [ours, dsh] = [await raw(port, path, { headers }), await raw(port, '/api/sessions', { headers })]
        assert.equal(dsh.status, 403, `dsh's /api/sessions refuses ${what}`)
        assert.equal(ours.status, dsh.status, `${path} answers ${what} as dsh does: ${ours.status} ${ours.body.slice(0, 80)}`)
        assert.doesNotMatch(ours.body, /user likes tea/)
      }
      for (const method of ['POST', 'DELETE']) {
        const r = await raw(port, path, { method, headers: own })
        assert.equal(r.status, 405, `${path}: ${method}`)
        assert.doesNotMatch(r.body, /user likes tea/)
      }
    }
    const client = /\/plugins\/dsh-memento\/client\.js\?rev=[\w-]+/.exec(index)
    assert.ok(client, 'client module listed in the boot graph')
    const js = await fetch(`${base}${client[0]}`)
    assert.equal(js.status, 200)
    assert.match(await js.text(), /__ModuleLoader__/)
  } finally {
    web.kill('SIGTERM')
    await new Promise((r) => (web.exitCode !== null ? r() : web.once('exit', r)))
  }
})

step('remove: dsh plugin remove leaves the profile clean (the store survives)', {}, () => {
  ok(sh('dsh', ['plugin', '--profile', 'headless', 'remove', PKG], { timeout: 300_000 }), 'dsh plugin remove')
  const p = profileJson('headless')
  assert.equal(p.dependencies?.[PKG], undefined)
  assert.ok(!p.dsh.profile.bundles.includes(PKG))
  assert.ok(!existsSync(join(HOME, 'profiles', 'headless', 'node_modules', PKG)), 'package removed from the profile')
  const dump = ok(sh('dsh', ['--profile', 'headless', '--dump-config']), 'dump-config').stdout
  assert.doesNotMatch(dump, /dsh-memento|id: memento/)
  assert.ok(existsSync(join(HOME, 'dsh-memento', 'memory.db')), "the memory store is the user's data and stays")
})
