// C — budget model (spec §5): hard per-track×scope budgets, structured BUDGET_EXCEEDED, seed pre-check.
import { assert, assertUsage, recordingGate, rejects, textsOf } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }

export default [
  {
    id: 'C1',
    title: 'over-budget add → BUDGET_EXCEEDED {track, scope, used, limit, needed = used + delta}, no row, gate not asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100, workspace: 2000 } } })
      await p.add({ ...UG, text: 'x'.repeat(60) }, write)
      gate.calls.length = 0
      await rejects(() => p.add({ ...UG, text: 'y'.repeat(50) }, write), 'BUDGET_EXCEEDED', { ...UG, used: 60, limit: 100, needed: 110 })
      assert.equal(gate.calls.length, 0, 'the budget pre-check refuses before asking')
      assert.deepEqual(textsOf(p), ['x'.repeat(60)], 'never truncated, never partially written')
      assert.equal(p.budgets()[0].used, 60)
    },
  },
  {
    id: 'C2',
    title: 'a write that lands exactly on the limit is allowed; one more char is not',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 100 } } })
      const r = await p.add({ ...UG, text: 'z'.repeat(100) }, write)
      assertUsage(r.usage, { ...UG, used: 100, limit: 100 })
      await rejects(() => p.add({ ...UG, text: '!' }, write), 'BUDGET_EXCEEDED', { ...UG, used: 100, limit: 100, needed: 101 })
    },
  },
  {
    id: 'C3',
    title: 'a single text larger than the whole budget is refused (used 0, needed = its length)',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 100 } } })
      await rejects(() => p.add({ ...UG, text: 'q'.repeat(150) }, write), 'BUDGET_EXCEEDED', { ...UG, used: 0, limit: 100, needed: 150 })
      assert.deepEqual(p.listEntries(), [])
    },
  },
  {
    id: 'C4',
    title: 'budgets are per track×scope: a full layer does not block the others',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 10, workspace: 10 }, agent: { userGlobal: 10, workspace: 10 } } })
      await p.add({ ...UG, text: 'u'.repeat(10) }, write)
      await p.add({ track: 'user', scope: 'workspace', text: 'v'.repeat(10) }, write)
      await p.add({ track: 'agent', scope: 'user-global', text: 'w'.repeat(10) }, write)
      await p.add({ track: 'agent', scope: 'workspace', text: 'x'.repeat(10) }, write)
      await rejects(() => p.add({ track: 'agent', scope: 'workspace', text: 'y' }, write), 'BUDGET_EXCEEDED', {
        track: 'agent',
        scope: 'workspace',
        used: 10,
        limit: 10,
        needed: 11,
      })
      assert.deepEqual(
        p.budgets().map((r) => r.used),
        [10, 10, 10, 10],
      )
    },
  },
  {
    id: 'C5',
    title: 'seed with one oversized item is rejected whole before the gate is asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      await rejects(
        () =>
          p.seed(
            [
              { ...UG, text: 'small one' },
              { ...UG, text: 'o'.repeat(150) },
              { track: 'agent', scope: 'user-global', text: 'unrelated layer' },
            ],
            write,
          ),
        'BUDGET_EXCEEDED',
        { ...UG, used: 0, limit: 100 },
      )
      assert.equal(gate.calls.length, 0, 'seed pre-checks the whole batch before approval')
      assert.deepEqual(p.listEntries(), [], 'nothing of the batch lands')
    },
  },
  {
    id: 'C6',
    title: 'seed whose items fit alone but not together → BUDGET_EXCEEDED (needed = used + batch sum), nothing lands',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      await p.add({ ...UG, text: 'e'.repeat(10) }, write)
      gate.calls.length = 0
      await rejects(
        () =>
          p.seed(
            [
              { ...UG, text: 'a'.repeat(50) },
              { ...UG, text: 'b'.repeat(50) },
            ],
            write,
          ),
        'BUDGET_EXCEEDED',
        { ...UG, used: 10, limit: 100, needed: 110 },
      )
      assert.equal(gate.calls.length, 0)
      assert.deepEqual(textsOf(p), ['e'.repeat(10)])
      const ok = await p.seed(
        [
          { ...UG, text: 'a'.repeat(45) },
          { ...UG, text: 'b'.repeat(45) },
        ],
        write,
      )
      assert.equal(ok.added, 2, 'a batch that fits exactly lands')
      assert.equal(p.budgets()[0].used, 100)
    },
  },
  {
    id: 'C7',
    title: 'budgets() returns 4 rows in fixed order with configured limits and used chars',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 111, workspace: 222 }, agent: { userGlobal: 333, workspace: 444 } } })
      const empty = p.budgets()
      assert.deepEqual(
        empty.map((r) => ({ track: r.track, scope: r.scope, used: r.used, limit: r.limit })),
        [
          { track: 'user', scope: 'user-global', used: 0, limit: 111 },
          { track: 'user', scope: 'workspace', used: 0, limit: 222 },
          { track: 'agent', scope: 'user-global', used: 0, limit: 333 },
          { track: 'agent', scope: 'workspace', used: 0, limit: 444 },
        ],
      )
      await p.add({ track: 'user', scope: 'workspace', text: 'abc' }, write)
      await p.add({ track: 'agent', scope: 'user-global', text: 'defg' }, write)
      await p.add({ track: 'agent', scope: 'user-global', text: 'hi' }, write)
      const rows = p.budgets()
      assert.equal(rows.length, 4)
      for (const r of rows) assertUsage(r)
      assert.deepEqual(
        rows.map((r) => [r.track, r.scope, r.used, r.limit]),
        [
          ['user', 'user-global', 0, 111],
          ['user', 'workspace', 3, 222],
          ['agent', 'user-global', 6, 333],
          ['agent', 'workspace', 0, 444],
        ],
      )
    },
  },
  {
    id: 'C8',
    title: 'budgets count text only: tags and metadata are free',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 5 } } })
      const tags = Array.from({ length: 16 }, (_, i) => `${'t'.repeat(30)}${String(i).padStart(2, '0')}`)
      const r = await p.add({ ...UG, text: 'abcde', tags, source: 's'.repeat(500) }, write)
      assertUsage(r.usage, { used: 5, limit: 5 })
      assert.equal(p.budgets()[0].used, 5)
    },
  },
  {
    id: 'C9',
    title: 'removing and consolidating free budget; usage follows every write',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 30 } } })
      await p.add({ ...UG, text: 'a'.repeat(10) }, write)
      await p.add({ ...UG, text: 'b'.repeat(10) }, write)
      await p.add({ ...UG, text: 'c'.repeat(10) }, write)
      await rejects(() => p.add({ ...UG, text: 'd' }, write), 'BUDGET_EXCEEDED', { used: 30, limit: 30, needed: 31 })
      const rm = await p.remove({ ...UG, match: 'aaa' }, write)
      assertUsage(rm.usage, { used: 20 })
      const c = await p.consolidate({ ...UG, matches: ['bbb', 'ccc'], text: 'bc' }, write)
      assertUsage(c.usage, { used: 2 })
      const a = await p.add({ ...UG, text: 'd'.repeat(28) }, write)
      assertUsage(a.usage, { used: 30, limit: 30 })
    },
  },
  {
    id: 'C10',
    title: 'consolidate budget: net delta counts (new - sum of targets); over budget → BUDGET_EXCEEDED, gate not asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 30 } } })
      await p.add({ ...UG, text: 'a'.repeat(10) }, write)
      await p.add({ ...UG, text: 'b'.repeat(10) }, write)
      gate.calls.length = 0
      await rejects(() => p.consolidate({ ...UG, matches: ['aaa', 'bbb'], text: 'm'.repeat(31) }, write), 'BUDGET_EXCEEDED', {
        ...UG,
        used: 20,
        limit: 30,
        needed: 31,
      })
      assert.equal(gate.calls.length, 0)
      const r = await p.consolidate({ ...UG, matches: ['aaa', 'bbb'], text: 'm'.repeat(30) }, write)
      assertUsage(r.usage, { used: 30, limit: 30 })
    },
  },
]
