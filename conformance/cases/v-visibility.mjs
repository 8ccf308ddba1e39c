// V — session visibility (spec §2 "Visibility"). A session sees, and replace/remove/consolidate
// can only target, the shared layer (agentKey '') plus its own agent's entries, and workspace
// entries of its own cwd only. These cases also pin down our fixes of reference defects:
// §9 B1 (no spurious AMBIGUOUS_MATCH from invisible entries after approval), D1 (a query given
// the session's agent/workspace sees only that visible set) and D3 (a workspace budget applies
// to each workspace's layer, and the usage reported is the usage enforced).
import { assert, assertUsage, recordingGate, rejects, textsOf, writeAs } from '../lib.mjs'

const WS_A = 'C:/conformance/ws-a'
const WS_B = 'C:/conformance/ws-b'
const alphaA = writeAs({ session: 'alpha-a', preset: 'alpha', cwd: WS_A })
const alphaB = writeAs({ session: 'alpha-b', preset: 'alpha', cwd: WS_B })
const betaA = writeAs({ session: 'beta-a', preset: 'beta', cwd: WS_A })
const sharedA = writeAs({ session: 'nopreset-a', cwd: WS_A })
const sharedB = writeAs({ session: 'nopreset-b', cwd: WS_B })

const AG = { track: 'agent', scope: 'user-global' }
const AW = { track: 'agent', scope: 'workspace' }

export default [
  {
    id: 'V1',
    title: "another agent's entry cannot be targeted (ENTRY_NOT_FOUND {track, scope, match}); its owner can",
    async run({ makeProvider }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const { entry } = await p.add({ ...AG, text: 'alpha private convention' }, alphaA)
      assert.equal(entry.agentKey.length > 0, true, 'an entry written by a preset session is keyed to that agent')
      gate.calls.length = 0
      await rejects(() => p.replace({ ...AG, match: 'private convention', text: 'hijacked' }, betaA), 'ENTRY_NOT_FOUND', {
        ...AG,
        match: 'private convention',
      })
      await rejects(() => p.remove({ ...AG, match: 'private convention' }, betaA), 'ENTRY_NOT_FOUND', {
        ...AG,
        match: 'private convention',
      })
      await rejects(() => p.consolidate({ ...AG, matches: ['private convention'], text: 'hijacked' }, betaA), 'ENTRY_NOT_FOUND', {
        ...AG,
        match: 'private convention',
      })
      await rejects(() => p.remove({ ...AG, match: 'private convention' }, sharedA), 'ENTRY_NOT_FOUND', {
        ...AG,
        match: 'private convention',
      })
      assert.equal(gate.calls.length, 0, 'the invisible entry is never shown for approval')
      assert.deepEqual(textsOf(p), ['alpha private convention'])
      const r = await p.replace({ ...AG, match: 'private convention', text: 'alpha private convention v2' }, alphaB)
      assert.equal(r.entry.id, entry.id, 'the owning agent can target it from any workspace (user-global)')
    },
  },
  {
    id: 'V2',
    title: "another workspace's workspace entry cannot be targeted; user-global entries are visible everywhere",
    async run({ makeProvider }) {
      const p = await makeProvider()
      const ws = await p.add({ ...AW, text: 'ws-a builds with make' }, alphaA)
      const ug = await p.add({ ...AG, text: 'alpha global habit' }, alphaA)
      assert.notEqual(ws.entry.workspaceKey, '', 'workspace entries carry the workspace key')
      await rejects(() => p.replace({ ...AW, match: 'builds with make', text: 'x' }, alphaB), 'ENTRY_NOT_FOUND', {
        ...AW,
        match: 'builds with make',
      })
      await rejects(() => p.remove({ ...AW, match: 'builds with make' }, alphaB), 'ENTRY_NOT_FOUND', { ...AW, match: 'builds with make' })
      const r = await p.replace({ ...AG, match: 'global habit', text: 'alpha global habit (from ws-b)' }, alphaB)
      assert.equal(r.entry.id, ug.entry.id)
      const r2 = await p.remove({ ...AW, match: 'builds with make' }, alphaA)
      assert.equal(r2.entry.id, ws.entry.id, 'the same workspace can target it')
    },
  },
  {
    id: 'V3',
    title: "the shared layer ('' agentKey) is visible to every agent; a session without a preset sees only it",
    async run({ makeProvider }) {
      const p = await makeProvider()
      const shared = await p.add({ ...AG, text: 'shared team convention' }, sharedA)
      assert.equal(shared.entry.agentKey, '', 'a session without a preset writes to the shared layer')
      const explicit = await p.add({ ...AG, text: 'explicitly shared note', agentKey: '' }, alphaA)
      assert.equal(explicit.entry.agentKey, '', "an explicit agentKey '' writes to the shared layer")
      await p.add({ ...AG, text: 'beta private note' }, betaA)
      const r1 = await p.replace({ ...AG, match: 'team convention', text: 'shared team convention v2' }, betaA)
      assert.equal(r1.entry.id, shared.entry.id, 'beta can target a shared entry')
      const r2 = await p.replace({ ...AG, match: 'explicitly shared', text: 'explicitly shared note v2' }, betaA)
      assert.equal(r2.entry.id, explicit.entry.id)
      const r3 = await p.remove({ ...AG, match: 'team convention' }, alphaA)
      assert.equal(r3.entry.id, shared.entry.id, 'alpha can target a shared entry too')
      await rejects(() => p.remove({ ...AG, match: 'beta private' }, sharedB), 'ENTRY_NOT_FOUND', { ...AG, match: 'beta private' })
      const r4 = await p.remove({ ...AG, match: 'explicitly shared' }, sharedB)
      assert.equal(r4.entry.id, explicit.entry.id, 'a preset-less session can target the shared layer')
    },
  },
  {
    id: 'V4',
    title: 'query with opts {agentKey, workspaceKey} returns exactly the session-visible set; no opts = full view',
    async run({ makeProvider }) {
      const p = await makeProvider()
      await p.add({ ...AG, text: 'vis shared global' }, sharedA)
      const alphaGlobal = await p.add({ ...AG, text: 'vis alpha global' }, alphaA)
      await p.add({ ...AG, text: 'vis beta global' }, betaA)
      const alphaWsA = await p.add({ ...AW, text: 'vis alpha ws-a' }, alphaA)
      await p.add({ ...AW, text: 'vis alpha ws-b' }, alphaB)
      await p.add({ ...AW, text: 'vis shared ws-a' }, sharedA)
      await p.add({ ...AW, text: 'vis shared ws-b' }, sharedB)
      await p.add({ ...AW, text: 'vis beta ws-a' }, betaA)
      const agentKey = alphaGlobal.entry.agentKey
      const workspaceKey = alphaWsA.entry.workspaceKey
      const seen = (filter, opts) =>
        p
          .query({ text: 'vis', limit: 100, ...filter }, opts)
          .entries.map((e) => e.text)
          .sort()
      assert.deepEqual(seen({}, { agentKey, workspaceKey }), ['vis alpha global', 'vis alpha ws-a', 'vis shared global', 'vis shared ws-a'])
      const res = p.query({ text: 'vis', limit: 100 }, { agentKey, workspaceKey })
      assert.equal(res.total, 4, 'total counts the visible set only')
      assert.deepEqual(seen({ scope: 'workspace' }, { agentKey, workspaceKey }), ['vis alpha ws-a', 'vis shared ws-a'])
      assert.deepEqual(seen({ track: 'agent', scope: 'user-global' }, { agentKey, workspaceKey }), [
        'vis alpha global',
        'vis shared global',
      ])
      assert.equal(p.query({ text: 'vis', limit: 100 }).total, 8, 'an agent-less query keeps the full cross-agent view')
      const wsB = p.listEntries().find((e) => e.text === 'vis shared ws-b').workspaceKey
      assert.deepEqual(seen({ scope: 'workspace' }, { agentKey, workspaceKey: wsB }), ['vis alpha ws-b', 'vis shared ws-b'])
    },
  },
  {
    id: 'V5',
    title: "the same substring in another agent's entry does not make replace/remove ambiguous (no spurious AMBIGUOUS_MATCH)",
    async run({ makeProvider }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const alpha = await p.add({ ...AG, text: 'prefer pnpm over npm (alpha)' }, alphaA)
      const beta = await p.add({ ...AG, text: 'prefer pnpm over npm (beta)' }, betaA)
      const r = await p.replace({ ...AG, match: 'prefer pnpm', text: 'prefer pnpm 9 over npm (beta)' }, betaA)
      assert.equal(r.entry.id, beta.entry.id, "beta's replace hits beta's own entry")
      assert.equal(r.previous.text, 'prefer pnpm over npm (beta)')
      const rm = await p.remove({ ...AG, match: 'prefer pnpm' }, alphaA)
      assert.equal(rm.entry.id, alpha.entry.id, "alpha's remove hits alpha's own entry")
      assert.deepEqual(textsOf(p), ['prefer pnpm 9 over npm (beta)'])
    },
  },
  {
    id: 'V6',
    title: 'the same substring in another workspace does not make replace/remove/consolidate ambiguous',
    async run({ makeProvider }) {
      const p = await makeProvider()
      const a = await p.add({ ...AW, text: 'use pnpm in this repo' }, alphaA)
      const b = await p.add({ ...AW, text: 'use pnpm in this repo' }, alphaB)
      const extraB = await p.add({ ...AW, text: 'node 20 in this repo' }, alphaB)
      const r = await p.replace({ ...AW, match: 'use pnpm', text: 'use pnpm 9 in this repo' }, alphaB)
      assert.equal(r.entry.id, b.entry.id)
      const c = await p.consolidate({ ...AW, matches: ['pnpm', 'node 20'], text: 'pnpm 9 + node 20' }, alphaB)
      assert.deepEqual(c.removed.map((e) => e.id).sort(), [b.entry.id, extraB.entry.id].sort())
      const rm = await p.remove({ ...AW, match: 'USE PNPM' }, alphaA)
      assert.equal(rm.entry.id, a.entry.id)
      assert.deepEqual(textsOf(p), ['pnpm 9 + node 20'])
    },
  },
  {
    id: 'V7',
    title: 'a workspace budget applies to each workspace layer; the usage reported is the usage enforced',
    async run({ makeProvider }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 2000, workspace: 50 } } })
      const UW = { track: 'user', scope: 'workspace' }
      const a = await p.add({ ...UW, text: 'a'.repeat(40) }, alphaA)
      assertUsage(a.usage, { ...UW, used: 40, limit: 50 })
      const b = await p.add({ ...UW, text: 'b'.repeat(40) }, betaB())
      assertUsage(b.usage, { ...UW, used: 40, limit: 50 }, 'usage of ws-b')
      await rejects(() => p.add({ ...UW, text: 'c'.repeat(20) }, alphaA), 'BUDGET_EXCEEDED', { ...UW, used: 40, limit: 50, needed: 60 })
      const wsA = a.entry.workspaceKey
      const wsB = b.entry.workspaceKey
      assert.equal(p.budgets({ workspaceKey: wsA })[1].used, 40)
      assert.equal(p.budgets({ workspaceKey: wsB })[1].used, 40)
      const c = await p.add({ ...UW, text: 'c'.repeat(10) }, alphaA)
      assertUsage(c.usage, { ...UW, used: 50, limit: 50 })
    },
  },
  {
    id: 'V8',
    title: 'keys default to the writer session; explicit input keys override',
    async run({ makeProvider }) {
      const p = await makeProvider()
      const a = await p.add({ ...AW, text: 'keyed by session' }, alphaA)
      const b = await p.add({ ...AW, text: 'keyed by session too' }, alphaA)
      assert.equal(a.entry.agentKey, 'alpha')
      assert.equal(a.entry.workspaceKey, b.entry.workspaceKey)
      const g = await p.add({ ...AG, text: 'global has no workspace' }, alphaA)
      assert.equal(g.entry.workspaceKey, '', "user-global entries have workspaceKey ''")
      const s = await p.add({ ...AW, text: 'explicit shared', agentKey: '' }, alphaA)
      assert.equal(s.entry.agentKey, '')
      const o = await p.add({ ...AW, text: 'explicit other agent', agentKey: 'gamma' }, alphaA)
      assert.equal(o.entry.agentKey, 'gamma')
      const n = await p.add({ ...AW, text: 'no preset writer' }, sharedA)
      assert.equal(n.entry.agentKey, '')
      assert.equal(n.entry.workspaceKey, a.entry.workspaceKey, 'same cwd, same workspace key, whatever the agent')
    },
  },
]

function betaB() {
  return writeAs({ session: 'beta-b', preset: 'beta', cwd: WS_B })
}
