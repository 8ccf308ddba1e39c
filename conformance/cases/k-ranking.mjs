// K — query and ranking (spec §4): recall counters, ordering, paging, folding, CJK.
import { assert, assertEntryShape, sleep } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }

export default [
  {
    id: 'K1',
    title: 'query bumps recallCount/lastRecalled of the hits; returned objects carry pre-increment counters',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const { entry } = await p.add({ ...UG, text: 'recall me' }, write)
      await p.add({ ...UG, text: 'not a hit' }, write)
      const before = Date.now()
      const r1 = p.query({ text: 'recall' })
      assert.equal(r1.total, 1)
      assert.equal(r1.entries.length, 1)
      assertEntryShape(r1.entries[0])
      assert.equal(r1.entries[0].id, entry.id)
      assert.equal(r1.entries[0].recallCount, 0, 'returned entry shows the pre-increment count')
      assert.equal(r1.entries[0].lastRecalled, null)
      const stored = p.listEntries().find((e) => e.id === entry.id)
      assert.equal(stored.recallCount, 1)
      assert.ok(Number.isInteger(stored.lastRecalled) && stored.lastRecalled >= before - 1000, 'lastRecalled is set to the query time')
      const miss = p.listEntries().find((e) => e.text === 'not a hit')
      assert.equal(miss.recallCount, 0, 'entries not in the result are untouched')
      assert.equal(miss.lastRecalled, null)
      const r2 = p.query({ text: 'recall' })
      assert.equal(r2.entries[0].recallCount, 1)
      assert.equal(p.listEntries().find((e) => e.id === entry.id).recallCount, 2)
      assert.equal(stored.version, 1, 'recall does not change the version')
    },
  },
  {
    id: 'K2',
    title: 'results order by recallCount DESC, then updatedAt DESC',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'rank oldest' }, write)
      await sleep(15)
      await p.add({ ...UG, text: 'rank middle' }, write)
      await sleep(15)
      await p.add({ ...UG, text: 'rank newest' }, write)
      // fresh store, no recalls: newest update first
      let r = p.query({ text: 'rank' })
      assert.deepEqual(
        r.entries.map((e) => e.text),
        ['rank newest', 'rank middle', 'rank oldest'],
      )
      // every entry now has 1 recall; give "oldest" two more and "middle" one more
      p.query({ text: 'oldest' })
      p.query({ text: 'oldest' })
      p.query({ text: 'middle' })
      r = p.query({ text: 'RANK' })
      assert.deepEqual(
        r.entries.map((e) => [e.text, e.recallCount]),
        [
          ['rank oldest', 3],
          ['rank middle', 2],
          ['rank newest', 1],
        ],
      )
    },
  },
  {
    id: 'K3',
    title: 'ties on recallCount are broken by updatedAt DESC (a replace makes an entry newer)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'tie first' }, write)
      await sleep(15)
      await p.add({ ...UG, text: 'tie second' }, write)
      await sleep(15)
      await p.replace({ ...UG, match: 'first', text: 'tie first edited' }, write)
      const r = p.query({ text: 'tie' })
      assert.deepEqual(
        r.entries.map((e) => e.text),
        ['tie first edited', 'tie second'],
      )
    },
  },
  {
    id: 'K4',
    title: 'limit, total and truncated',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      for (let i = 0; i < 5; i++) await p.add({ ...UG, text: `page item ${i}` }, write)
      await p.add({ ...UG, text: 'other' }, write)
      const a = p.query({ text: 'page', limit: 2 })
      assert.equal(a.entries.length, 2)
      assert.equal(a.total, 5)
      assert.equal(a.truncated, true)
      const b = p.query({ text: 'page', limit: 10 })
      assert.equal(b.entries.length, 5)
      assert.equal(b.total, 5)
      assert.equal(b.truncated, false)
      const c = p.query({ text: 'page', limit: 5 })
      assert.equal(c.entries.length, 5)
      assert.equal(c.truncated, false)
      const all = p.query({ limit: 100 })
      assert.equal(all.total, 6, 'no text filter: every entry')
    },
  },
  {
    id: 'K5',
    title: 'the default page size is 20',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.seed(
        Array.from({ length: 25 }, (_, i) => ({ ...UG, text: `default page ${i}` })),
        write,
      )
      const r = p.query({ text: 'default page' })
      assert.equal(r.entries.length, 20)
      assert.equal(r.total, 25)
      assert.equal(r.truncated, true)
      const r2 = p.query()
      assert.equal(r2.entries.length, 20, 'query() with no filter pages at 20 too')
    },
  },
  {
    id: 'K6',
    title: 'query limit is capped at 1000',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { agent: { userGlobal: 100000 } } })
      const mk = (from, n) => Array.from({ length: n }, (_, i) => ({ track: 'agent', scope: 'user-global', text: `bulk ${from + i}` }))
      await p.seed(mk(0, 600), write)
      await p.seed(mk(600, 405), write)
      const r = p.query({ text: 'bulk', limit: 5000 })
      assert.equal(r.total, 1005)
      assert.equal(r.entries.length, 1000, 'a page never exceeds 1000 entries')
      assert.equal(r.truncated, true)
    },
  },
  {
    id: 'K7',
    title: 'query folds ASCII case ("PNPM" finds "pnpm") but not non-ASCII ("Ä" does not find "ä")',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'always use pnpm' }, write)
      await p.add({ ...UG, text: 'mag ärger nicht' }, write)
      assert.deepEqual(
        p.query({ text: 'PNPM' }).entries.map((e) => e.text),
        ['always use pnpm'],
      )
      assert.equal(p.query({ text: 'Always Use' }).total, 1)
      assert.equal(p.query({ text: 'Ä' }).total, 0, '"Ä" must not match "ä" (ASCII-only folding)')
      assert.equal(p.query({ text: 'ÄRGER' }).total, 0)
      assert.equal(p.query({ text: 'äRGER' }).total, 1, 'ASCII letters fold around an exact non-ASCII letter')
    },
  },
  {
    id: 'K8',
    title: 'CJK substring search',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: '用户喜欢简洁的中文回答' }, write)
      await p.add({ ...UG, text: '项目使用 pnpm 管理依赖' }, write)
      assert.deepEqual(
        p.query({ text: '中文' }).entries.map((e) => e.text),
        ['用户喜欢简洁的中文回答'],
      )
      assert.equal(p.query({ text: '简' }).total, 1, 'a single ideograph is a valid query')
      assert.equal(p.query({ text: '依赖' }).total, 1)
      assert.equal(p.query({ text: '英文' }).total, 0)
      assert.equal(p.query({ text: '😀' }).total, 0)
    },
  },
  {
    id: 'K9',
    title: 'track and scope filters',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ track: 'user', scope: 'user-global', text: 'f user global' }, write)
      await p.add({ track: 'user', scope: 'workspace', text: 'f user workspace' }, write)
      await p.add({ track: 'agent', scope: 'user-global', text: 'f agent global' }, write)
      await p.add({ track: 'agent', scope: 'workspace', text: 'f agent workspace' }, write)
      const texts = (f) =>
        p
          .query({ ...f, limit: 50 })
          .entries.map((e) => e.text)
          .sort()
      assert.deepEqual(texts({ track: 'agent' }), ['f agent global', 'f agent workspace'])
      assert.deepEqual(texts({ scope: 'workspace' }), ['f agent workspace', 'f user workspace'])
      assert.deepEqual(texts({ track: 'user', scope: 'user-global' }), ['f user global'])
      assert.deepEqual(texts({ track: 'user', scope: 'workspace', text: 'WORKSPACE' }), ['f user workspace'])
    },
  },
  {
    id: 'K10',
    title: 'query needs no approval and writes no entry change',
    async run({ makeProvider, write }) {
      let asked = 0
      const p = await makeProvider({
        gate: async () => {
          asked++
          return 'allowed-once'
        },
      })
      await p.add({ ...UG, text: 'read only' }, write)
      asked = 0
      const before = p.listEntries().map(({ id, text, version, updatedAt }) => ({ id, text, version, updatedAt }))
      p.query({ text: 'read' })
      p.query({})
      assert.equal(asked, 0, 'reads never ask')
      const after = p.listEntries().map(({ id, text, version, updatedAt }) => ({ id, text, version, updatedAt }))
      assert.deepEqual(after, before, 'text, version and updatedAt do not change on read')
    },
  },
]
