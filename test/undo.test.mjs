// History, undo and sessions through the plugin's surfaces, over the real native provider (a temp
// store per setup) and the mock Cordis context: the typed `/memory` verbs, the `memory` tool's
// `history` and `undo` actions (asked through dsh's approval), the snapshot recorded with its
// session's keys, and the panel's routes (an entry's history, the audit rows an Undo goes with,
// a revert previewed and written with its digest, the Sessions view).
import { after, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clearFrozenSnapshots, SNAPSHOT_SECTION } from '../lib/snapshot.mjs'
import { validate } from '../lib/jsonschema.mjs'
import { makeAgent, mockCtx } from './support/cordis.mjs'
import { provider as native, skip } from './support/provider.mjs'

const dir = mkdtempSync(join(tmpdir(), 'memento-undo-'))
let n = 0
const ctxs = []
after(() => {
  for (const c of ctxs) c.dispose()
  rmSync(dir, { recursive: true, force: true })
})
const apply = native.apply
const ws = (cwd) => native.workspaceKeyOf(cwd)
/** A workspace key inside a RegExp: on Windows it holds backslashes (`z:\\ws\\a`). */
const wsRe = (cwd) => ws(cwd).replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
/** The plugin on a fresh store; the harness answerer approves every memory request (and records it). */
function setup(config = {}, opts = {}) {
  const ctx = mockCtx(opts)
  apply(ctx, { dbPath: join(dir, `u${n++}.db`), ...config })
  ctx.on('approval/request', async (req, next) => (req.toolName === 'memory' ? 'allowed-once' : next()))
  ctxs.push(ctx)
  return { ctx, memory: ctx.get('memory'), tool: ctx.tools.get('memory') }
}
const cmd = async (ctx, agent, line) => (await ctx.commands.execute(agent, line)).result
const texts = (memory) =>
  memory
    .listEntries()
    .map((e) => e.text)
    .sort()
const run = async (tool, args, agent) => {
  const value = await tool.execute(args, { agent, callId: 'call-1', signal: new AbortController().signal })
  assert.deepEqual(validate(tool.output.schema, value), [], `output matches the declared schema: ${JSON.stringify(value)}`)
  return value
}

beforeEach(() => clearFrozenSnapshots())

describe('/memory history, undo and sessions', { skip }, () => {
  test('history by substring, #seq and id: every version with the row that made it, then how it ended', async () => {
    const { ctx, memory } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    await cmd(ctx, agent, '/memory add uses pnpm')
    await cmd(ctx, agent, '/memory replace pnpm => uses pnpm 9')
    const [entry] = memory.listEntries()
    const h = await cmd(ctx, agent, '/memory history pnpm')
    assert.equal(h.kind, 'success', h.text)
    assert.match(
      h.text,
      new RegExp(
        `^History of entry ${entry.id} \\[user/workspace @${wsRe('/ws/a')}\\], 2 versions, oldest first:\n` +
          '- v1 #1 \\S+ add · command · allowed-once \\(via command, writePolicy ask\\)\n {4}uses pnpm\n' +
          '- v2 #2 \\S+ replace · command · allowed-once \\(via command, writePolicy ask\\)\n {4}uses pnpm 9\n' +
          'In memory now as v2\\.$',
      ),
    )
    assert.equal((await cmd(ctx, agent, '/memory history #1')).text, h.text, 'the entry audit row 1 names')
    assert.equal((await cmd(ctx, agent, `/memory history ${entry.id}`)).text, h.text, 'the entry by its id')
    // A substring is found as replace finds it: in this session's view, in the layer the flags name.
    assert.match((await cmd(ctx, makeAgent({ cwd: '/ws/b' }), '/memory history pnpm')).text, /^memory ENTRY_NOT_FOUND: /)
    assert.match((await cmd(ctx, agent, '/memory history --track=agent pnpm')).text, /^memory ENTRY_NOT_FOUND: .*agent\/workspace/)
    assert.equal(
      (await cmd(ctx, agent, '/memory history')).text,
      'history needs an entry: its id, the #<seq> of a row that names it, or a unique substring: /memory history [--track=user|agent] [--scope=user-global|workspace] <substring> | /memory history <id|#seq>',
    )
    await cmd(ctx, agent, '/memory remove pnpm')
    assert.match((await cmd(ctx, agent, '/memory history #1')).text, /\nRemoved by #3 \(\S+\)\.$/, 'a removed entry keeps its history')
  })

  test('a typed undo is the user’s own consent: it shows the whole change, lands, and is audited (via command)', async () => {
    const { ctx, memory } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    await cmd(ctx, agent, '/memory add uses pnpm')
    await cmd(ctx, agent, '/memory replace pnpm => uses pnpm 9')
    const r = await cmd(ctx, agent, '/memory undo')
    assert.equal(r.kind, 'success', r.text)
    // No approval card: the result is the change as the gate was asked it.
    assert.match(
      r.text,
      /^Undid change #2 \(1 entry\):\n\[dsh-memento\] revert of change #2 \(undo the replace\)\nfrom: [^\n]*\n│ uses pnpm 9\nto: [^\n]*\n│ uses pnpm$/,
    )
    assert.equal(ctx.approval.requests.length, 0, 'nobody else was asked')
    assert.deepEqual(texts(memory), ['uses pnpm'])
    const [row] = memory.auditList(1)
    assert.deepEqual([row.action, row.outcome, row.text], ['replace', 'allowed-once (via command, writePolicy ask)', 'uses pnpm'])
    assert.deepEqual(memory.history({ match: 'pnpm' }).versions.at(-1).reverts, 2)
    // A bare undo takes the newest change again: undoing the undo is a redo.
    assert.match((await cmd(ctx, agent, '/memory undo')).text, /^Undid change #3 /)
    assert.deepEqual(texts(memory), ['uses pnpm 9'])
    // By seq: the add, which the replace and its undo have changed since, is refused before asking.
    const refused = await cmd(ctx, agent, '/memory undo #1')
    assert.equal(refused.kind, 'error')
    assert.match(refused.text, /^memory ENTRY_NOT_FOUND: /)
    assert.equal(memory.auditList(1)[0].seq, 4, 'a refusal before asking writes no row')
    assert.match((await cmd(ctx, agent, '/memory undo 1 2')).text, /^undo takes at most one audit seq: \/memory undo \[<seq>\]$/)
    assert.match((await cmd(ctx, agent, '/memory undo nine')).text, /^memory INVALID_INPUT: an audit seq must be a positive integer/)
  })

  test('a consolidate of three, undone whole; a bare undo sees only its workspace; nothing to undo says so', async () => {
    const { ctx, memory } = setup()
    const a = makeAgent({ cwd: '/ws/a' })
    for (const t of ['alpha one', 'beta two', 'gamma three']) await cmd(ctx, a, `/memory add ${t}`)
    await cmd(ctx, a, '/memory consolidate one two three => alpha, beta and gamma')
    // Another workspace's change is newer, but this session does not see it.
    const b = makeAgent({ cwd: '/ws/b' })
    await cmd(ctx, b, '/memory add elsewhere')
    const r = await cmd(ctx, a, '/memory undo')
    assert.match(r.text, /^Undid change #7 \(4 entries\):\n\[dsh-memento\] revert of change #7 \(undo the consolidate\)\n/)
    assert.match(r.text, /\nremove: [^\n]*\n│ alpha, beta and gamma\n/)
    for (const t of ['alpha one', 'beta two', 'gamma three']) assert.match(r.text, new RegExp(`\nrestore: [^\n]*\n│ ${t}(\n|$)`))
    assert.deepEqual(texts(memory), ['alpha one', 'beta two', 'elsewhere', 'gamma three'])
    // Put back in the order they were first stored: the newest row is the last of them.
    const audit = await cmd(ctx, a, '/memory audit')
    assert.match(
      audit.text,
      /^Recent audit \(\d+ rows\):\n- #\d+ \S+ add user\/workspace allowed-once \(via command, writePolicy ask\) \(command\): gamma three\n/,
    )
    assert.match(audit.text, /\nUndo a change: \/memory undo <seq>; an entry's versions: \/memory history #<seq>$/)
    const fresh = setup()
    assert.deepEqual(await cmd(fresh.ctx, a, '/memory undo'), {
      kind: 'success',
      text: 'Nothing to undo: no change this workspace and agent see can be undone.',
    })
  })

  test('sessions: the snapshots recorded with their keys, and one session’s exact text', async () => {
    const { ctx, memory } = setup()
    const a = makeAgent({ cwd: '/ws/a', agentPreset: 'coder' })
    await memory.add({ track: 'user', scope: 'workspace', text: 'ws a fact' }, { agent: a })
    const given = ctx.systemPrompt.map.get(SNAPSHOT_SECTION).text({ agent: a })
    assert.match(given, /- ws a fact$/)
    assert.deepEqual(
      memory.sessions().sessions.map((s) => [s.sessionId, s.workspaceKey, s.agentKey, s.chars]),
      [[a.session.id, ws('/ws/a'), 'coder', given.length]],
      'recorded with the keys of the set it shows',
    )
    assert.equal(memory.sessions({ workspaceKey: ws('/ws/b'), agentKey: '' }).sessions.length, 0)
    const list = await cmd(ctx, a, '/memory sessions')
    assert.match(
      list.text,
      new RegExp(
        `^Recorded sessions \\(1, newest first\\):\n- ${a.session.id} \\S+ @${wsRe('/ws/a')} #coder: ${given.length} chars\nWhat one was given: /memory sessions <id>$`,
      ),
    )
    const one = await cmd(ctx, a, `/memory sessions ${a.session.id}`)
    assert.equal(one.text, `${one.text.split('\n')[0]}\n${given}`, 'byte for byte what it was given')
    assert.match(one.text, /^Session \S+ \(\S+, @\S+ #coder\) was given exactly this \(\d+ chars\):\n/)
    assert.equal((await cmd(ctx, a, '/memory sessions nope')).text, 'No session "nope" is recorded.')
  })

  test('zh words for history, undo and sessions', async () => {
    const { ctx } = setup({ language: 'zh' })
    const agent = makeAgent({ cwd: '/ws/a' })
    await cmd(ctx, agent, '/memory add 喜欢茶')
    assert.match(
      (await cmd(ctx, agent, '/memory history 茶')).text,
      /^条目 \S+ \[user\/workspace @\S+\] 的历史，共 1 个版本，从旧到新：\n[^]*\n当前在记忆中的是 v1。$/,
    )
    assert.match((await cmd(ctx, agent, '/memory undo')).text, /^已撤销变更 #1（1 条）：\n/)
    assert.equal((await cmd(ctx, agent, '/memory sessions')).text, '没有记录的会话。')
  })
})

describe('the memory tool: history and undo', { skip }, () => {
  test("history lists the versions of an entry the session sees; undo is asked on dsh's approval card with the whole inverse change", async () => {
    const { ctx, memory, tool } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    await run(tool, { action: 'add', text: 'Prefers tabs' }, agent)
    await run(tool, { action: 'replace', match: 'tabs', text: 'Prefers spaces, width 2' }, agent)
    const h = await run(tool, { action: 'history', match: 'spaces' }, agent)
    assert.deepEqual(
      h.history.versions.map((v) => [v.version, v.seq, v.action, v.text, v.source]),
      [
        [1, 1, 'add', 'Prefers tabs', 'memory-tool'],
        [2, 2, 'replace', 'Prefers spaces, width 2', 'memory-tool'],
      ],
    )
    assert.deepEqual([h.history.track, h.history.scope, h.history.complete], ['user', 'workspace', true])
    assert.equal(
      tool.output.render({}, h)[0].text,
      `memory history of entry ${h.history.entryId} (user/workspace): 2 versions, oldest first\n` +
        '- v1 (change #1, add): Prefers tabs\n- v2 (change #2, replace): Prefers spaces, width 2\nin memory now as v2',
    )
    // Of what the session sees: another workspace's session does not find it.
    const elsewhere = await run(tool, { action: 'history', match: 'spaces' }, makeAgent({ cwd: '/ws/b' }))
    assert.equal(elsewhere.error.code, 'ENTRY_NOT_FOUND')
    const before = ctx.approval.requests.length
    const u = await run(tool, { action: 'undo', seq: 2 }, agent)
    assert.equal(u.ok, true, JSON.stringify(u))
    assert.deepEqual(
      u.changes.map((c) => [c.action, c.entry.text]),
      [['replace', 'Prefers tabs']],
    )
    assert.equal(tool.output.render({}, u)[0].text, 'memory change #2 undone (1 entry):\n- rewritten back to [user/workspace] Prefers tabs')
    const req = ctx.approval.requests[before]
    assert.equal(req.toolName, 'memory')
    assert.match(
      req.reason,
      /^\[dsh-memento\] revert of change #2 \(undo the replace\)\nfrom: [^\n]*\n│ Prefers spaces, width 2\nto: [^\n]*\n│ Prefers tabs$/,
    )
    assert.equal(memory.auditList(1)[0].outcome, 'allowed-once (via approval, writePolicy ask)')
    assert.deepEqual(texts(memory), ['Prefers tabs'])
  })

  test('undo: only what the session sees; refused before asking when an entry changed since; denied when the person says no', async () => {
    const { ctx, memory, tool } = setup()
    const a = makeAgent({ cwd: '/ws/a' })
    const b = makeAgent({ cwd: '/ws/b' })
    await run(tool, { action: 'add', text: 'in a' }, a)
    const hidden = await run(tool, { action: 'undo', seq: 1 }, b)
    assert.equal(hidden.error.code, 'ENTRY_NOT_FOUND', 'another workspace cannot undo it')
    await run(tool, { action: 'replace', match: 'in a', text: 'in a, changed' }, a)
    const asked = ctx.approval.requests.length
    const changed = await run(tool, { action: 'undo', seq: 1 }, a)
    assert.equal(changed.ok, false)
    assert.equal(changed.error.code, 'ENTRY_NOT_FOUND')
    assert.equal(changed.error.reason, 'changed')
    assert.deepEqual([changed.error.reverts, changed.error.current.text], [1, 'in a, changed'])
    assert.match(tool.output.render({}, changed)[0].text, /\nits current text: in a, changed$/)
    assert.equal(ctx.approval.requests.length, asked, 'refused before anyone was asked')
    const bad = await run(tool, { action: 'undo' }, a)
    assert.equal(bad.error.code, 'INVALID_INPUT')
    // The person declines: nothing changes, the refusal is audited.
    ctx.on('approval/request', async (req, next) => (req.toolName === 'memory' ? 'rejected' : next()), { prepend: true })
    const denied = await run(tool, { action: 'undo', seq: 2 }, a)
    assert.equal(denied.error.code, 'WRITE_DENIED')
    assert.deepEqual(texts(memory), ['in a, changed'])
    assert.equal(memory.auditList(1)[0].action, 'revert-denied')
  })

  test('the parameters and description name the new actions', () => {
    const { tool } = setup()
    assert.deepEqual(tool.parameters.properties.action.enum, ['add', 'replace', 'remove', 'consolidate', 'query', 'history', 'undo'])
    assert.equal(tool.parameters.properties.seq.type, 'integer')
    assert.match(tool.description, /history \(match\)[^\n]*undo \(seq\)/)
  })
})

describe('the panel: history, Undo and Sessions', { skip }, () => {
  const agent = makeAgent({ cwd: '/ws/a' })
  const own = { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' }
  /** A POST to the write route as the page sends it. */
  async function post(ctx, body) {
    const token = (await ctx.webServer.call('/api/memento/panel')).json.token
    return ctx.webServer.call('/api/memento/write', {
      method: 'POST',
      headers: { ...own, 'content-type': 'application/json', 'x-memento-token': token },
      body: JSON.stringify({ session: agent.session.id, ...body }),
    })
  }
  function panel() {
    const s = setup()
    s.ctx.services.set('agents', { get: (id) => (id === agent.session.id ? agent : undefined) })
    return s
  }
  const get = async (ctx, path) => (await ctx.webServer.call(path, { headers: own })).json

  test('an entry’s history by id or by the seq of a row; audit rows marked with what the page’s session can undo', async () => {
    const { ctx, memory } = panel()
    await memory.add({ track: 'user', scope: 'workspace', text: 'tabs' }, { agent })
    await memory.replace({ track: 'user', scope: 'workspace', match: 'tabs', text: 'spaces' }, { agent })
    await memory.add({ track: 'user', scope: 'workspace', text: 'other workspace' }, { agent: makeAgent({ cwd: '/ws/b' }) })
    const [entry] = memory.listEntries()
    const h = await get(ctx, `/api/memento/history?id=${entry.id}`)
    assert.deepEqual(
      h.history.versions.map((v) => [v.version, v.seq, v.action, v.text, v.outcome]),
      [
        [1, 1, 'add', 'tabs', 'allowed-once (via approval, writePolicy ask)'],
        [2, 2, 'replace', 'spaces', 'allowed-once (via approval, writePolicy ask)'],
      ],
    )
    assert.deepEqual((await get(ctx, '/api/memento/history?seq=1')).history, h.history)
    const refused = await ctx.webServer.call('/api/memento/history?seq=abc', { headers: own })
    assert.deepEqual([refused.status, refused.json.error.code], [400, 'INVALID_INPUT'])
    assert.equal((await ctx.webServer.call('/api/memento/history?id=nope', { headers: own })).json.error.code, 'INVALID_INPUT')
    // Without a session there is nobody to undo for: no row is marked.
    assert.ok((await get(ctx, '/api/memento/audit')).rows.every((r) => r.undo === undefined))
    const { rows } = await get(ctx, `/api/memento/audit?session=${agent.session.id}`)
    assert.deepEqual(
      rows.map((r) => [r.seq, r.undo, r.undoWhy !== undefined]),
      [
        [3, false, true], // another workspace's add: this session does not see it
        [2, true, false],
        [1, false, true], // changed since: its entry is at version 2
      ],
    )
    assert.equal((await ctx.webServer.call('/api/memento/history', { method: 'POST', headers: own })).status, 405, 'read-only')
  })

  test('Undo through the confirmation: the preview shows the inverse change, the write needs its digest', async () => {
    const { ctx, memory } = panel()
    for (const text of ['one', 'two', 'three']) await memory.add({ track: 'user', scope: 'workspace', text }, { agent })
    await memory.consolidate({ track: 'user', scope: 'workspace', matches: ['one', 'two', 'three'], text: 'one two three' }, { agent })
    const { preview } = (await post(ctx, { op: 'revert', seq: 7 })).json
    assert.equal(preview.action, 'revert')
    assert.equal(preview.reverts, 7)
    assert.deepEqual(
      preview.before.map((e) => e.text),
      ['one two three'],
    )
    assert.deepEqual(preview.after.map((e) => e.text).sort(), ['one', 'three', 'two'])
    assert.equal(memory.listEntries().length, 1, 'a preview writes nothing')
    const wrong = await post(ctx, { op: 'revert', seq: 7, digest: 'x'.repeat(64) })
    assert.equal(wrong.json.error.code, 'WRITE_DENIED')
    const done = await post(ctx, { op: 'revert', seq: 7, digest: preview.digest })
    assert.equal(done.status, 200, JSON.stringify(done.json))
    assert.equal(done.json.result.reverted, 7)
    assert.deepEqual(texts(memory), ['one', 'three', 'two'])
    assert.ok(memory.auditList(4).every((r) => r.outcome === 'allowed-once (via panel, writePolicy ask)'))
    // Undone already: the merged entry is gone, so a second undo of it is refused.
    const again = await post(ctx, { op: 'revert', seq: 7 })
    assert.deepEqual([again.status, again.json.error.code], [400, 'ENTRY_NOT_FOUND'])
    assert.ok(memory.auditVerify().ok)
  })

  test('Sessions: what a session was given beside what the next session would get', async () => {
    const { ctx, memory } = panel()
    await memory.add({ track: 'user', scope: 'workspace', text: 'before the session' }, { agent })
    const given = ctx.systemPrompt.map.get(SNAPSHOT_SECTION).text({ agent })
    await memory.add({ track: 'user', scope: 'workspace', text: 'after the session' }, { agent })
    const q = new URLSearchParams({ session: agent.session.id, cwd: '/ws/a' })
    const d = await get(ctx, `/api/memento/sessions?${q}`)
    assert.deepEqual(
      d.sessions.map((s) => s.id),
      [agent.session.id],
    )
    assert.equal(d.given.text, given)
    assert.equal(d.next.text, memory.snapshot({ workspaceKey: ws('/ws/a'), agentKey: '' }))
    assert.match(d.next.text, /## User preferences for this workspace — 35\/2000 chars used\n- before the session\n- after the session$/)
    assert.equal(d.next.chars, d.next.text.length)
    // No session on the page: every recorded session, and no next snapshot to compute.
    const none = await get(ctx, '/api/memento/sessions')
    assert.deepEqual([none.sessions.length, none.given.id, none.next], [1, agent.session.id, null])
  })
})
