// B — write semantics (spec §3): replace/remove/consolidate/seed, conditional writes,
// unique-substring targeting, approve-what-you-see payloads.
import { assert, assertEntryShape, assertUsage, recordingGate, rejects, sleep, textsOf, UUID_V4, writeAs } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }
const AW = { track: 'agent', scope: 'workspace' }

export default [
  {
    id: 'B1',
    title: 'replace keeps the id, bumps version, keeps createdAt, returns {previous, entry, usage}',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const { entry: orig } = await p.add({ ...UG, text: 'likes dark mode', source: 'conformance' }, write)
      await sleep(5)
      const r = await p.replace({ ...UG, match: 'dark mode', text: 'likes light mode' }, write)
      assertEntryShape(r.entry)
      assertEntryShape(r.previous, 'previous')
      assert.equal(r.entry.id, orig.id, 'replace keeps the id')
      assert.equal(r.entry.version, 2)
      assert.equal(r.entry.text, 'likes light mode')
      assert.equal(r.entry.createdAt, orig.createdAt, 'createdAt is unchanged')
      assert.ok(r.entry.updatedAt >= orig.updatedAt)
      assert.equal(r.entry.source, 'conformance', 'source is unchanged')
      assert.equal(r.entry.track, 'user')
      assert.equal(r.entry.scope, 'user-global')
      assert.equal(r.entry.agentKey, orig.agentKey)
      assert.equal(r.entry.workspaceKey, orig.workspaceKey)
      assert.equal(r.previous.id, orig.id)
      assert.equal(r.previous.text, 'likes dark mode')
      assert.equal(r.previous.version, 1)
      assertUsage(r.usage, { ...UG, used: 'likes light mode'.length, limit: 2000 })
      const r3 = await p.replace({ ...UG, match: 'light', text: 'likes solarized' }, write)
      assert.equal(r3.entry.version, 3, 'each replace increments the version')
      const listed = p.listEntries()
      assert.equal(listed.length, 1)
      assert.equal(listed[0].id, orig.id)
      assert.equal(listed[0].version, 3)
      assert.equal(listed[0].text, 'likes solarized')
    },
  },
  {
    id: 'B2',
    title: 'ambiguous match → AMBIGUOUS_MATCH {candidates, sample}; nothing changes; gate not asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'use pnpm for installs' }, write)
      await p.add({ ...AW, text: 'pnpm lockfile is committed' }, write)
      await p.add({ ...AW, text: 'tests run with vitest' }, write)
      gate.calls.length = 0
      const before = p.listEntries()
      for (const op of [
        () => p.replace({ ...AW, match: 'pnpm', text: 'x' }, write),
        () => p.remove({ ...AW, match: 'PNPM' }, write),
        () => p.consolidate({ ...AW, matches: ['vitest', 'pnpm'], text: 'x' }, write),
      ]) {
        const err = await rejects(op, 'AMBIGUOUS_MATCH', { candidates: 2 })
        assert.ok(Array.isArray(err.details.sample), 'details.sample is an array')
        assert.equal(err.details.sample.length, 2)
        assert.deepEqual(
          [...err.details.sample].sort(),
          ['pnpm lockfile is committed', 'use pnpm for installs'],
          'sample holds the candidate texts',
        )
      }
      assert.deepEqual(p.listEntries(), before, 'an ambiguous write changes nothing')
      assert.equal(gate.calls.length, 0, 'a bad match never reaches approval')
    },
  },
  {
    id: 'B3',
    title: 'zero hits → ENTRY_NOT_FOUND {track, scope, match} for replace, remove, consolidate',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...UG, text: 'writes commit messages in English' }, write)
      gate.calls.length = 0
      await rejects(() => p.replace({ ...UG, match: 'nowhere', text: 'x' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'nowhere' })
      await rejects(() => p.remove({ ...UG, match: 'nowhere' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'nowhere' })
      await rejects(() => p.consolidate({ ...UG, matches: ['English', 'nowhere'], text: 'x' }, write), 'ENTRY_NOT_FOUND', {
        ...UG,
        match: 'nowhere',
      })
      // the same text in another track/scope is not a hit
      await rejects(() => p.remove({ track: 'agent', scope: 'user-global', match: 'English' }, write), 'ENTRY_NOT_FOUND', {
        track: 'agent',
        scope: 'user-global',
        match: 'English',
      })
      await rejects(() => p.remove({ track: 'user', scope: 'workspace', match: 'English' }, write), 'ENTRY_NOT_FOUND', {
        track: 'user',
        scope: 'workspace',
        match: 'English',
      })
      assert.deepEqual(textsOf(p), ['writes commit messages in English'])
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'B4',
    title: 'remove returns the removed entry; removing twice → ENTRY_NOT_FOUND',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const { entry } = await p.add({ ...UG, text: 'temporary note' }, write)
      await p.add({ ...UG, text: 'stays' }, write)
      const r = await p.remove({ ...UG, match: 'temporary' }, write)
      assert.equal(r.entry.id, entry.id)
      assert.equal(r.entry.text, 'temporary note')
      assertUsage(r.usage, { ...UG, used: 'stays'.length, limit: 2000 })
      assert.deepEqual(textsOf(p), ['stays'])
      await rejects(() => p.remove({ ...UG, match: 'temporary' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'temporary' })
      await rejects(() => p.replace({ ...UG, match: 'temporary', text: 'again' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'temporary' })
    },
  },
  {
    id: 'B5',
    title: 'consolidate deletes all targets and inserts one fresh version-1 entry; re-run → ENTRY_NOT_FOUND',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const a = (await p.add({ ...AW, text: 'build with cargo' }, write)).entry
      const b = (await p.add({ ...AW, text: 'lint with clippy' }, write)).entry
      await p.add({ ...AW, text: 'node 20 is the floor' }, write)
      await p.replace({ ...AW, match: 'clippy', text: 'lint with clippy -D warnings' }, write)
      gate.calls.length = 0
      const r = await p.consolidate(
        { ...AW, matches: ['cargo', 'clippy'], text: 'build with cargo, lint with clippy', tags: ['rust'] },
        write,
      )
      assert.equal(gate.calls.length, 1, 'one approval for the whole consolidation')
      assert.equal(r.removed.length, 2)
      assert.deepEqual(r.removed.map((e) => e.id).sort(), [a.id, b.id].sort())
      assertEntryShape(r.entry)
      assert.equal(r.entry.version, 1, 'the consolidated entry starts at version 1')
      assert.ok(![a.id, b.id].includes(r.entry.id), 'the consolidated entry has a fresh id')
      assert.match(r.entry.id, UUID_V4)
      assert.deepEqual(r.entry.tags, ['rust'])
      assert.equal(r.entry.text, 'build with cargo, lint with clippy')
      assert.equal(r.entry.track, 'agent')
      assert.equal(r.entry.scope, 'workspace')
      assert.equal(r.entry.sessionId, 'conformance-session')
      assertUsage(r.usage, { ...AW, used: 'build with cargo, lint with clippy'.length + 'node 20 is the floor'.length, limit: 4000 })
      assert.deepEqual(textsOf(p), ['build with cargo, lint with clippy', 'node 20 is the floor'])
      await rejects(() => p.consolidate({ ...AW, matches: ['cargo build'], text: 'again' }, write), 'ENTRY_NOT_FOUND', {
        ...AW,
        match: 'cargo build',
      })
    },
  },
  {
    id: 'B6',
    title: 'consolidate is all-or-nothing: one missing target → ENTRY_NOT_FOUND and no target deleted',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'alpha fact' }, write)
      await p.add({ ...AW, text: 'beta fact' }, write)
      gate.calls.length = 0
      const before = p.listEntries()
      await rejects(() => p.consolidate({ ...AW, matches: ['alpha', 'gamma'], text: 'merged' }, write), 'ENTRY_NOT_FOUND', {
        ...AW,
        match: 'gamma',
      })
      assert.deepEqual(p.listEntries(), before)
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'B7',
    title: 'consolidate: two matches hitting one entry fail before the gate is asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'alpha and beta together' }, write)
      await p.add({ ...AW, text: 'gamma alone' }, write)
      gate.calls.length = 0
      const before = p.listEntries()
      let err
      try {
        await p.consolidate({ ...AW, matches: ['alpha', 'beta'], text: 'merged' }, write)
      } catch (e) {
        err = e
      }
      assert.ok(err, 'consolidate whose matches name the same entry must fail')
      assert.ok(
        ['INVALID_INPUT', 'AMBIGUOUS_MATCH'].includes(err.code),
        `expected INVALID_INPUT or AMBIGUOUS_MATCH, got ${err.code} (${err.message})`,
      )
      assert.ok(err.details && typeof err.details === 'object', 'error carries .details')
      assert.equal(gate.calls.length, 0, 'the gate is not asked (gate call count 0)')
      assert.deepEqual(p.listEntries(), before)
    },
  },
  {
    id: 'B8',
    title: 'consolidate matches must be 1..20 non-empty strings (INVALID_INPUT); 20 is allowed',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      for (const matches of [[], 'one', null, undefined, [''], ['ok', ''], [1], Array.from({ length: 21 }, (_, i) => `m${i}`)]) {
        await rejects(
          () => p.consolidate({ ...AW, matches, text: 'x' }, write),
          'INVALID_INPUT',
          undefined,
          `matches ${JSON.stringify(matches)}`,
        )
      }
      for (const match of ['', null, undefined, 5]) {
        await rejects(
          () => p.replace({ ...AW, match, text: 'x' }, write),
          'INVALID_INPUT',
          undefined,
          `replace match ${JSON.stringify(match)}`,
        )
        await rejects(() => p.remove({ ...AW, match }, write), 'INVALID_INPUT', undefined, `remove match ${JSON.stringify(match)}`)
      }
      assert.equal(gate.calls.length, 0)
      await p.seed(
        Array.from({ length: 21 }, (_, i) => ({ ...AW, text: `item-${String(i).padStart(2, '0')}` })),
        write,
      )
      const r = await p.consolidate(
        { ...AW, matches: Array.from({ length: 20 }, (_, i) => `item-${String(i).padStart(2, '0')}`), text: 'twenty merged' },
        write,
      )
      assert.equal(r.removed.length, 20)
      assert.deepEqual(textsOf(p), ['item-20', 'twenty merged'])
    },
  },
  {
    id: 'B9',
    title: 'seed inserts a batch under one approval with fresh ids and version 1',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const inputs = [
        { track: 'user', scope: 'user-global', text: 'seed one', tags: ['x'] },
        { track: 'agent', scope: 'workspace', text: 'seed two', source: 'mem0' },
        { track: 'agent', scope: 'user-global', text: 'seed three' },
      ]
      const r = await p.seed(inputs, write)
      assert.equal(gate.calls.length, 1, 'seed asks once')
      assert.equal(r.added, 3)
      assert.equal(r.entries.length, 3)
      const ids = new Set()
      for (const e of r.entries) {
        assertEntryShape(e)
        assert.equal(e.version, 1)
        assert.equal(e.recallCount, 0)
        assert.equal(e.sessionId, 'conformance-session')
        ids.add(e.id)
      }
      assert.equal(ids.size, 3)
      const byText = new Map(r.entries.map((e) => [e.text, e]))
      assert.deepEqual(byText.get('seed one').tags, ['x'])
      assert.equal(byText.get('seed two').source, 'mem0', 'each input keeps its own source')
      assert.equal(byText.get('seed two').scope, 'workspace')
      assert.deepEqual(textsOf(p), ['seed one', 'seed three', 'seed two'])
      const payload = gate.calls[0]
      assert.equal(payload.action, 'seed')
      assert.equal(payload.track, 'batch')
      assert.equal(payload.scope, 'batch')
      assert.equal(payload.count, 3)
      for (const i of inputs) assert.ok(payload.text.includes(i.text), `seed payload shows ${JSON.stringify(i.text)}`)
    },
  },
  {
    id: 'B10',
    title: 'seed is all-or-nothing: one invalid item rejects the batch before approval',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await rejects(
        () =>
          p.seed(
            [
              { ...UG, text: 'fine' },
              { track: 'user', scope: 'nowhere', text: 'bad scope' },
            ],
            write,
          ),
        'INVALID_INPUT',
      )
      await rejects(
        () =>
          p.seed(
            [
              { ...UG, text: 'fine' },
              { ...UG, text: 'bad tag', tags: ['x'.repeat(33)] },
            ],
            write,
          ),
        'INVALID_INPUT',
      )
      assert.deepEqual(p.listEntries(), [])
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'B11',
    title: 'add payload: action add, track, scope, the new text, the source',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ track: 'agent', scope: 'workspace', text: 'repo uses conventional commits', source: 'memory-tool' }, write)
      assert.equal(gate.calls.length, 1)
      const pl = gate.calls[0]
      assert.equal(pl.action, 'add')
      assert.equal(pl.track, 'agent')
      assert.equal(pl.scope, 'workspace')
      assert.equal(pl.text, 'repo uses conventional commits')
      assert.equal(pl.source, 'memory-tool')
      const w = gate.writes[0]
      assert.equal(w?.agent?.session?.id, 'conformance-session', 'the gate receives the write context')
    },
  },
  {
    id: 'B12',
    title: 'replace payload text is exactly "from:\\n{old}\\n\\nto:\\n{new}"',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const old = 'prefers 2-space indent\nin every language'
      await p.add({ ...UG, text: old }, write)
      gate.calls.length = 0
      await p.replace({ ...UG, match: '2-SPACE', text: 'prefers 4-space indent' }, write)
      assert.equal(gate.calls.length, 1)
      const pl = gate.calls[0]
      assert.equal(pl.action, 'replace')
      assert.equal(pl.track, 'user')
      assert.equal(pl.scope, 'user-global')
      assert.equal(pl.text, `from:\n${old}\n\nto:\nprefers 4-space indent`)
    },
  },
  {
    id: 'B13',
    title: 'remove payload text is the full removed text; its source is the target entry source',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const long = `obsolete: ${'z'.repeat(700)} end`
      await p.add({ ...UG, text: long, source: 'claude' }, write)
      gate.calls.length = 0
      await p.remove({ ...UG, match: 'obsolete' }, write)
      const pl = gate.calls[0]
      assert.equal(pl.action, 'remove')
      assert.equal(pl.track, 'user')
      assert.equal(pl.scope, 'user-global')
      assert.equal(pl.text, long, 'the complete text being deleted, never an excerpt')
      assert.equal(pl.source, 'claude')
    },
  },
  {
    id: 'B14',
    title: 'consolidate payload shows each target text and the new text',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'deploys go through make ship' }, write)
      await p.add({ ...AW, text: 'staging is at stage.internal' }, write)
      gate.calls.length = 0
      await p.consolidate({ ...AW, matches: ['make ship', 'staging'], text: 'deploy: make ship; staging: stage.internal' }, write)
      const pl = gate.calls[0]
      assert.equal(pl.action, 'consolidate')
      assert.equal(pl.track, 'agent')
      assert.equal(pl.scope, 'workspace')
      assert.ok(pl.text.includes('deploys go through make ship'), 'payload shows target 1')
      assert.ok(pl.text.includes('staging is at stage.internal'), 'payload shows target 2')
      assert.ok(pl.text.includes('deploy: make ship; staging: stage.internal'), 'payload shows the new text')
    },
  },
  {
    id: 'B15',
    title: 'replace tags: omitted or null keep the old tags, [] clears them, a list replaces them',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'v0', tags: ['keep', 'me'] }, write)
      let r = await p.replace({ ...UG, match: 'v0', text: 'v1' }, write)
      assert.deepEqual(r.entry.tags, ['keep', 'me'], 'tags omitted → preserved')
      r = await p.replace({ ...UG, match: 'v1', text: 'v2', tags: null }, write)
      assert.deepEqual(r.entry.tags, ['keep', 'me'], 'tags null → preserved')
      r = await p.replace({ ...UG, match: 'v2', text: 'v3', tags: [' new ', 'new', 'x'] }, write)
      assert.deepEqual(r.entry.tags, ['new', 'x'], 'tags given → replaced (normalized)')
      r = await p.replace({ ...UG, match: 'v3', text: 'v4', tags: [] }, write)
      assert.deepEqual(r.entry.tags, [], 'tags [] → cleared')
      assert.deepEqual(p.listEntries()[0].tags, [])
      assert.equal(p.listEntries()[0].version, 5)
    },
  },
  {
    id: 'B16',
    title: 'duplicate text is legal (no dedupe by value)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const a = await p.add({ ...UG, text: 'same text' }, write)
      const b = await p.add({ ...UG, text: 'same text' }, write)
      assert.notEqual(a.entry.id, b.entry.id)
      assert.equal(p.listEntries().length, 2)
      assert.equal(p.budgets()[0].used, 'same text'.length * 2)
      await rejects(() => p.remove({ ...UG, match: 'same text' }, write), 'AMBIGUOUS_MATCH', { candidates: 2 })
    },
  },
  {
    id: 'B17',
    title: 'targeting folds ASCII case only: "PNPM" targets "pnpm", "Ä" does not target "ä"; CJK matches',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'always use pnpm' }, write)
      await p.add({ ...UG, text: 'kennt die Ärzte' }, write)
      await p.add({ ...UG, text: '喜欢简洁的回答' }, write)
      const r = await p.replace({ ...UG, match: 'USE PNPM', text: 'always use PNPM 9' }, write)
      assert.equal(r.previous.text, 'always use pnpm')
      await rejects(() => p.remove({ ...UG, match: 'ärzte' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'ärzte' })
      const r2 = await p.remove({ ...UG, match: 'ÄRZTE' }, write)
      assert.equal(r2.entry.text, 'kennt die Ärzte', 'ASCII letters fold, the non-ASCII letter matches exactly')
      const r3 = await p.remove({ ...UG, match: '简洁' }, write)
      assert.equal(r3.entry.text, '喜欢简洁的回答')
      assert.deepEqual(textsOf(p), ['always use PNPM 9'])
    },
  },
  {
    id: 'B18',
    title: 'replace and consolidate record the writing session; other fields survive',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'first draft', source: 'claude', tags: ['t'] }, write)
      const other = writeAs({ session: 'second-session', preset: 'conformance', cwd: 'C:/conformance/ws' })
      const r = await p.replace({ ...UG, match: 'draft', text: 'second draft' }, other)
      assert.equal(r.entry.sessionId, 'second-session', 'sessionId is the session that last wrote the entry')
      assert.equal(r.previous.sessionId, 'conformance-session')
      assert.equal(r.entry.source, 'claude')
      await p.add({ ...UG, text: 'another' }, write)
      const c = await p.consolidate({ ...UG, matches: ['second draft', 'another'], text: 'merged' }, other)
      assert.equal(c.entry.sessionId, 'second-session')
    },
  },
  {
    id: 'B19',
    title: 'replace over budget → BUDGET_EXCEEDED with needed = used + (new - old); shrinking is fine',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { agent: { userGlobal: 30, workspace: 4000 } } })
      await p.add({ track: 'agent', scope: 'user-global', text: 'a'.repeat(10) }, write)
      await p.add({ track: 'agent', scope: 'user-global', text: 'b'.repeat(15) }, write)
      gate.calls.length = 0
      await rejects(
        () => p.replace({ track: 'agent', scope: 'user-global', match: 'aaaa', text: 'c'.repeat(16) }, write),
        'BUDGET_EXCEEDED',
        {
          track: 'agent',
          scope: 'user-global',
          used: 25,
          limit: 30,
          needed: 31,
        },
      )
      assert.equal(gate.calls.length, 0, 'the budget pre-check runs before approval')
      const r = await p.replace({ track: 'agent', scope: 'user-global', match: 'aaaa', text: 'c'.repeat(15) }, write)
      assertUsage(r.usage, { track: 'agent', scope: 'user-global', used: 30, limit: 30 })
      const r2 = await p.replace({ track: 'agent', scope: 'user-global', match: 'cccc', text: 'c' }, write)
      assertUsage(r2.usage, { used: 16 })
    },
  },
]
