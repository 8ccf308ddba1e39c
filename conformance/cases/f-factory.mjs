// F — the factory contract (spec §10): makeProvider({dbPath, budgets?, gate?}) and its surface.
import path from 'node:path'
import { assert, assertUsage, recordingGate, rejects } from '../lib.mjs'

const METHODS = ['add', 'replace', 'remove', 'consolidate', 'seed', 'query', 'budgets', 'listEntries', 'auditList']

export default [
  {
    id: 'F1',
    title: 'makeProvider returns add, replace, remove, consolidate, seed, query, budgets, listEntries, auditList (+ optional close)',
    async run({ makeProvider }) {
      const p = await makeProvider()
      for (const m of METHODS) assert.equal(typeof p[m], 'function', `provider.${m} is a function`)
      assert.ok(p.close === undefined || typeof p.close === 'function', 'close is optional, and a function if present')
      assert.deepEqual(p.listEntries(), [])
      assert.deepEqual(p.query({}), { entries: [], total: 0, truncated: false })
      assert.ok(Array.isArray(p.auditList()))
    },
  },
  {
    id: 'F2',
    title: 'without a gate the factory approves writes (test glue only)',
    async run({ makeProvider, write }) {
      const p = await makeProvider({})
      const { entry } = await p.add({ track: 'user', scope: 'user-global', text: 'approved by the default test gate' }, write)
      assert.equal(p.listEntries()[0].id, entry.id)
    },
  },
  {
    id: 'F3',
    title: 'a partial budgets object is merged over the defaults (user 2000/2000, agent 4000/4000)',
    async run({ makeProvider, dir }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 50 } } })
      const rows = p.budgets()
      assert.equal(rows.length, 4)
      rows.forEach((r) => assertUsage(r))
      assert.deepEqual(
        rows.map((r) => r.limit),
        [50, 2000, 4000, 4000],
      )
      const q = await makeProvider({ budgets: { agent: { workspace: 7 } }, dbPath: path.join(dir, 'second.db') })
      assert.deepEqual(
        q.budgets().map((r) => r.limit),
        [2000, 2000, 4000, 7],
      )
    },
  },
  {
    id: 'F4',
    title: 'close() is idempotent; later calls throw STORE_CORRUPT {path}; the data stays on disk',
    async run({ makeProvider, write, dbPath, skip }) {
      const p = await makeProvider()
      if (typeof p.close !== 'function') skip('the provider has no close()')
      await p.add({ track: 'user', scope: 'user-global', text: 'written before close' }, write)
      await p.close()
      await p.close()
      const UGX = { track: 'user', scope: 'user-global' }
      for (const [label, fn] of Object.entries({
        listEntries: () => p.listEntries(),
        query: () => p.query({}),
        budgets: () => p.budgets(),
        auditList: () => p.auditList(),
        add: () => p.add({ ...UGX, text: 'after close' }, write),
      })) {
        const err = await rejects(fn, 'STORE_CORRUPT', undefined, label)
        assert.equal(typeof err.details.path, 'string', `${label}: details.path`)
      }
      const q = await makeProvider({ dbPath })
      assert.deepEqual(
        q.listEntries().map((e) => e.text),
        ['written before close'],
      )
    },
  },
  {
    id: 'F5',
    title: 'closing while a write awaits approval: the approved write then fails STORE_CORRUPT and nothing lands',
    async run({ makeProvider, write, dbPath, skip }) {
      let release
      const gate = () =>
        new Promise((resolve) => {
          release = resolve
        })
      const p = await makeProvider({ gate })
      if (typeof p.close !== 'function') skip('the provider has no close()')
      const pending = p.add({ track: 'user', scope: 'user-global', text: 'approved after close' }, write)
      for (let i = 0; i < 50 && !release; i++) await new Promise((r) => setTimeout(r, 5))
      assert.ok(release, 'the gate was asked')
      await p.close()
      release('allowed-once')
      await rejects(() => pending, 'STORE_CORRUPT')
      const q = await makeProvider({ dbPath, gate: recordingGate() })
      assert.deepEqual(q.listEntries(), [])
    },
  },
]
