// E — export-envelope properties (spec §8): what an export built from budgets() + listEntries()
// holds, JSON safety, persistence of the local store.
import { assert, assertEntryShape, assertUsage, sleep } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }

export default [
  {
    id: 'E1',
    title: 'an envelope built from budgets() + listEntries() is JSON-safe: 4 budget rows, entries with tags and version',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'exported fact', tags: ['export', 'v1'] }, write)
      await p.add({ track: 'agent', scope: 'workspace', text: 'exported workspace fact' }, write)
      const envelope = {
        plugin: 'dsh-memento',
        schema: 'memory-export-v1',
        exportedAt: new Date().toISOString(),
        budgets: p.budgets(),
        entries: p.listEntries(),
      }
      const round = JSON.parse(JSON.stringify(envelope))
      assert.deepEqual(round, envelope, 'budgets() and listEntries() values survive JSON round-trip unchanged')
      assert.equal(round.budgets.length, 4)
      const vocab = [
        ['user', 'user-global'],
        ['user', 'workspace'],
        ['agent', 'user-global'],
        ['agent', 'workspace'],
      ]
      round.budgets.forEach((r, i) => {
        assertUsage(r, { track: vocab[i][0], scope: vocab[i][1] }, `budgets[${i}]`)
      })
      assert.equal(round.entries.length, 2)
      round.entries.forEach((e, i) => assertEntryShape(e, `entries[${i}]`))
      const tagged = round.entries.find((e) => e.text === 'exported fact')
      assert.deepEqual(tagged.tags, ['export', 'v1'])
      assert.equal(tagged.version, 1)
    },
  },
  {
    id: 'E2',
    title: 'updatedAt >= createdAt everywhere; replace bumps version and updatedAt',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const { entry } = await p.add({ ...UG, text: 'timestamped' }, write)
      await sleep(10)
      const { entry: next } = await p.replace({ ...UG, match: 'timestamped', text: 'timestamped again' }, write)
      assert.equal(next.version, 2)
      assert.ok(next.updatedAt > entry.updatedAt, 'replace moves updatedAt forward')
      assert.equal(next.createdAt, entry.createdAt)
      for (const e of p.listEntries()) {
        assert.ok(Number.isInteger(e.version) && e.version >= 1)
        assert.ok(e.updatedAt >= e.createdAt)
      }
    },
  },
  {
    id: 'E3',
    title: 'the store is a local file: entries and audit survive close and reopen',
    async run({ makeProvider, write, dbPath }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'durable fact', tags: ['keep'] }, write)
      await p.replace({ ...UG, match: 'durable', text: 'durable fact v2' }, write)
      await p.add({ track: 'agent', scope: 'workspace', text: 'second durable fact' }, write)
      const entries = p.listEntries()
      const audit = p.auditList(100)
      const budgets = p.budgets()
      await p.close?.()
      const q = await makeProvider({ dbPath })
      assert.deepEqual(q.listEntries(), entries, 'entries are identical after reopening')
      assert.deepEqual(q.auditList(100), audit, 'the audit ledger is identical after reopening')
      assert.deepEqual(q.budgets(), budgets)
    },
  },
  {
    id: 'E4',
    title: 'listEntries returns every entry, oldest first (createdAt non-decreasing)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      for (let i = 0; i < 4; i++) {
        await p.add({ track: i % 2 ? 'agent' : 'user', scope: i < 2 ? 'user-global' : 'workspace', text: `entry ${i}` }, write)
        await sleep(3)
      }
      const list = p.listEntries()
      assert.deepEqual(
        list.map((e) => e.text),
        ['entry 0', 'entry 1', 'entry 2', 'entry 3'],
      )
      for (let i = 1; i < list.length; i++) assert.ok(list[i].createdAt >= list[i - 1].createdAt)
    },
  },
]
