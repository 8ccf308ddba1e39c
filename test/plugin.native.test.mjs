// The plugin glue over the REAL native provider (skipped when the addon is not built):
// transports, labels, snapshot usage, command whitespace and proposals end to end in-process.
import { after, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApply } from '../lib/plugin/plugin.mjs'
import { clearFrozenSnapshots } from '../lib/plugin/snapshot.mjs'
import { validate } from '../lib/plugin/jsonschema.mjs'
import { renderMemoryResult } from '../lib/plugin/tools.mjs'
import { makeAgent, mockCtx, workspaceKeyOf } from './support/plugin-fakes.mjs'
import { NATIVE_BUILT as built } from './support/faults/common.mjs'

const native = built ? await import('../index.mjs') : null
const dir = mkdtempSync(join(tmpdir(), 'memento-plugin-native-'))
let n = 0
const ctxs = []
after(() => {
  for (const c of ctxs) c.dispose()
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => clearFrozenSnapshots())

function setup(config = {}, opts = {}) {
  const ctx = mockCtx(opts)
  createApply(() => native)(ctx, { dbPath: join(dir, `m${n++}.db`), ...config })
  ctxs.push(ctx)
  return { ctx, memory: ctx.get('memory'), tool: ctx.tools.get('memory') }
}
const allow = (ctx) => ctx.on('approval/request', async (req, next) => (req.toolName === 'memory' ? 'allowed-once' : next()))
const run = async (tool, args, agent) => {
  const value = await tool.execute(args, { agent, callId: 'call-1', signal: new AbortController().signal })
  assert.deepEqual(validate(tool.output.schema, value), [], JSON.stringify(value))
  return value
}
const cmd = async (ctx, agent, line) => (await ctx.commands.execute(agent, line)).result
const audit = (memory) => memory.auditList(50).map((r) => [r.action, r.outcome])

describe('plugin module', { skip: built ? false : 'native addon not built' }, () => {
  test('lib/plugin/index.mjs imports on plain Node without any dsh package; no default export', async () => {
    const plugin = await import('../lib/plugin/index.mjs')
    assert.deepEqual(Object.keys(plugin).sort(), ['Config', 'apply', 'inject', 'name'])
    assert.equal(plugin.name, 'memento')
    assert.deepEqual(plugin.inject, ['tools', 'systemPrompt', 'approval'])
    // Without the schemastery peer, Config is a Standard Schema with the same defaults.
    assert.equal(plugin.Config['~standard'].validate({}).value.snapshotOrder, -50)
    assert.match(plugin.Config['~standard'].validate({ writePolicy: 'always' }).issues[0].message, /^invalid writePolicy "always"/)
  })
})

describe('plugin over the native provider', { skip: built ? false : 'native addon not built' }, () => {
  test('in-turn: approved add lands with the approval label; ask without answerer is denied', async () => {
    const { ctx, memory, tool } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    const denied = await run(tool, { action: 'add', text: 'user hates rain' }, agent)
    assert.equal(denied.error.code, 'WRITE_DENIED')
    assert.equal(denied.error.outcome, 'unavailable')
    allow(ctx)
    const v = await run(tool, { action: 'add', text: 'user likes tea' }, agent)
    assert.equal(v.ok, true)
    assert.deepEqual(v.usage, { track: 'user', scope: 'workspace', used: 14, limit: 2000 })
    assert.deepEqual(audit(memory), [
      ['add', 'allowed-once (via approval, writePolicy ask)'],
      ['add-denied', 'unavailable (via approval, writePolicy ask)'],
    ])
    assert.equal(ctx.approval.requests[0].reason, '[dsh-memento] add user/workspace [source:memory-tool]\nuser hates rain')
    assert.deepEqual(memory.listEntries().map((e) => e.text), ['user likes tea'])
  })
  test('the memory tool shows the model the current text of a target rewritten while its approval waited', async () => {
    const dbPath = join(dir, 'changed.db')
    const { ctx, memory, tool } = setup({ dbPath })
    const agent = makeAgent({ cwd: '/ws/a' })
    let release = null
    ctx.on('approval/request', (req, next) => (req.toolName !== 'memory' ? next() : release ? new Promise((r) => (release = r)) : 'allowed-once'))
    await run(tool, { action: 'add', text: 'user likes tea' }, agent)
    release = () => {}
    const pending = run(tool, { action: 'replace', match: 'tea', text: 'user likes coffee' }, agent)
    await new Promise((resolve) => setTimeout(resolve, 20))
    const other = new native.MemoryProvider({ dbPath, gate: () => 'allowed-once' })
    await other.replace({ track: 'user', scope: 'workspace', match: 'tea', text: 'user likes green tea' }, { agent })
    other.close()
    release('allowed-once')
    const v = await pending
    assert.equal(v.ok, false)
    assert.equal(v.error.code, 'ENTRY_NOT_FOUND')
    assert.equal(v.error.reason, 'changed')
    assert.equal(v.error.current.text, 'user likes green tea')
    assert.match(renderMemoryResult(v)[0].text, /\nits current text: user likes green tea$/)
    assert.deepEqual(memory.listEntries().map((e) => e.text), ['user likes green tea'])
  })
  test('policies: auto, source override, global off, session never', async () => {
    let s = setup({ writePolicy: 'auto' })
    assert.equal((await run(s.tool, { action: 'add', text: 'a' }, makeAgent())).ok, true)
    assert.deepEqual(audit(s.memory), [['add', 'allowed-once (via approval, writePolicy auto)']])
    s = setup({ writePolicy: 'off', writePolicies: { 'source:memory-tool': 'auto' } })
    assert.equal((await run(s.tool, { action: 'add', text: 'b' }, makeAgent())).ok, true)
    assert.deepEqual(audit(s.memory), [['add', 'allowed-once (via approval, writePolicies["source:memory-tool"] auto)']])
    s = setup({ writePolicy: 'off' })
    assert.equal((await run(s.tool, { action: 'add', text: 'c' }, makeAgent())).error.outcome, 'rejected')
    assert.equal((await cmd(s.ctx, makeAgent(), '/memory add c')).kind, 'error')
    assert.deepEqual(audit(s.memory), [['add-denied', 'rejected (via command, writePolicy off)'], ['add-denied', 'rejected (via approval, writePolicy off)']])
    s = setup({ writePolicy: 'auto' }, { approvalPolicy: 'never' })
    assert.equal((await cmd(s.ctx, makeAgent(), '/memory add d')).kind, 'error')
    assert.equal((await run(s.tool, { action: 'add', text: 'd' }, makeAgent())).error.outcome, 'rejected')
    assert.deepEqual(audit(s.memory), [['add-denied', 'rejected (via approval, session approval policy never)'], ['add-denied', 'rejected (via command, session approval policy never)']])
  })
  test('a caller-supplied gate on ctx.memory is ignored', async () => {
    const { memory } = setup()
    await assert.rejects(memory.add({ track: 'user', scope: 'workspace', text: 'x' }, { agent: makeAgent(), gate: async () => 'allowed-once' }), (e) => e.code === 'WRITE_DENIED')
    assert.equal(memory.listEntries().length, 0)
  })
  test('commands: whitespace kept, command label, list/budgets/remove/consolidate/export/import', async () => {
    const { ctx, memory } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    agent.session.events.length = 0
    assert.deepEqual(await cmd(ctx, agent, '/memory add --track=agent keep   two\n spaces'), { kind: 'success', text: 'Added (agent/workspace): keep   two\n spaces\nLayer usage: 18/4000' })
    assert.equal((await cmd(ctx, agent, '/memory budgets')).text, 'Budget usage:\n- user/user-global: 0/2000\n- user/workspace: 0/2000\n- agent/user-global: 0/4000\n- agent/workspace: 18/4000')
    assert.equal((await cmd(ctx, makeAgent({ cwd: '/ws/b' }), '/memory budgets')).text.split('\n')[4], '- agent/workspace: 0/4000')
    await cmd(ctx, agent, '/memory add --track=agent second')
    assert.equal((await cmd(ctx, agent, '/memory consolidate --track=agent two second => merged')).text, 'Consolidated (agent/workspace): removed 2, added 1.\nNew entry: merged\nLayer usage: 6/4000')
    const doc = (await cmd(ctx, agent, '/memory export')).text
    assert.equal((await cmd(ctx, agent, '/memory remove --track=agent merged')).text, 'Removed (agent/workspace): merged\nLayer usage: 0/4000')
    const imp = await cmd(ctx, agent, `/memory import ${doc}`)
    assert.match(imp.text, /^Imported 1 entries into memory/, imp.text)
    assert.deepEqual(memory.listEntries().map((e) => [e.text, e.workspaceKey]), [['merged', workspaceKeyOf('/ws/a')]])
    assert.equal(memory.auditList(1)[0].outcome, 'allowed-once (via command, writePolicy ask)')
  })
  test('snapshot: usage enforced for the workspace; frozen per session id', async () => {
    const { ctx, memory } = setup({ writePolicy: 'auto' })
    await memory.add({ track: 'user', scope: 'workspace', text: 'ws a fact' }, { agent: makeAgent({ cwd: '/ws/a' }) })
    await memory.add({ track: 'user', scope: 'workspace', text: 'ws b fact!' }, { agent: makeAgent({ cwd: '/ws/b' }) })
    const section = ctx.systemPrompt.map.get('dsh-memento:memory')
    const next = makeAgent({ cwd: '/ws/a' })
    const text = section.text({ agent: next })
    assert.match(text, /## User preferences for this workspace — 9\/2000 chars used\n- ws a fact$/)
    await memory.add({ track: 'user', scope: 'workspace', text: 'later' }, { agent: next })
    assert.equal(section.text({ agent: { session: { ...next.session } } }), text)
  })
  test('secrets: refused with a reason the model can act on; under warn the approver sees the warning', async () => {
    const secret = 'my key is sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD'
    let s = setup({ writePolicy: 'auto' })
    const v = await run(s.tool, { action: 'add', text: secret }, makeAgent())
    assert.equal(v.error.code, 'INVALID_INPUT')
    assert.equal(v.error.reason, 'secret')
    s = setup({ secretPolicy: 'warn' })
    allow(s.ctx)
    assert.equal((await run(s.tool, { action: 'add', text: secret }, makeAgent())).ok, true)
    assert.match(s.ctx.approval.requests[0].reason, /^\[dsh-memento\] add user\/workspace \[source:memory-tool\]\nmy key is sk-[^\n]*\n\n⚠ /)
  })
  test('/memory audit verify walks the hash chain', async () => {
    const { ctx } = setup()
    const agent = makeAgent()
    await cmd(ctx, agent, '/memory add one')
    await cmd(ctx, agent, '/memory add two')
    assert.match((await cmd(ctx, agent, '/memory audit verify')).text, /^Audit chain verified: 2 rows, head \S+$/)
  })
  test('proposals: capture → approve through the command writes a proposal entry once', async () => {
    const { ctx, memory } = setup()
    const agent = makeAgent({ cwd: '/ws/a' })
    for (const [type, data] of [['compaction/start', {}], ['compaction/summary', { summary: [{ type: 'text', text: 'we use pnpm' }] }], ['compaction/end', {}]]) ctx.emit('session/event', agent.session, { type, data })
    const [p] = memory.proposalList('pending', 10)
    assert.equal(p.text, 'we use pnpm')
    const r = await cmd(ctx, agent, `/memory proposals approve ${p.id}`)
    assert.equal(r.text, 'Proposal approved and written to memory (agent/workspace): we use pnpm\nLayer usage: 11/4000')
    assert.equal((await cmd(ctx, agent, `/memory proposals approve ${p.id}`)).kind, 'error')
    assert.deepEqual(memory.listEntries().map((e) => [e.text, e.source]), [['we use pnpm', 'proposal']])
  })
})
