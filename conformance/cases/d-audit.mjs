// D — audit and reconstruction (spec §6): allow rows, denied rows, recalled rows,
// consolidate/seed rows, and replaying the ledger to rebuild the store.
import path from 'node:path'
import { assert, recordingGate, rejects, textsOf } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }
const AW = { track: 'agent', scope: 'workspace' }

function assertAuditRow(r, label = 'audit row') {
  for (const k of ['seq', 'ts', 'action', 'track', 'scope', 'entryId', 'text', 'outcome', 'source', 'sessionId']) {
    assert.ok(k in r, `${label} lacks ${k}`)
  }
  assert.ok(Number.isInteger(r.seq), `${label}.seq is an integer`)
  assert.ok(Number.isInteger(r.ts), `${label}.ts is an integer (epoch ms)`)
  assert.equal(typeof r.action, 'string')
  assert.ok(r.action.length > 0)
  for (const k of ['track', 'scope', 'entryId', 'text', 'outcome', 'source', 'sessionId']) {
    assert.ok(r[k] === null || typeof r[k] === 'string', `${label}.${k} is a string or null`)
  }
}

/** A fresh provider whose gate answers `outcome`, with one entry to target. */
async function deniedSetup(makeProvider, write, outcome) {
  const gate = recordingGate('allowed-once')
  const p = await makeProvider({ gate })
  await p.add({ ...UG, text: 'existing entry text' }, write)
  await p.add({ ...UG, text: 'second entry text' }, write)
  gate.outcome = outcome
  gate.calls.length = 0
  return { p, gate }
}

const DENIALS = {
  "gate returns 'rejected'": { gate: () => 'rejected', outcome: 'rejected' },
  "gate returns 'cancelled'": { gate: () => 'cancelled', outcome: 'cancelled' },
  "gate returns 'unavailable'": { gate: () => 'unavailable', outcome: 'unavailable' },
  "gate returns 'allowed'": { gate: () => 'allowed', outcome: 'allowed' },
  "gate returns 'ALLOWED-ONCE'": { gate: () => 'ALLOWED-ONCE', outcome: 'ALLOWED-ONCE' },
  "gate returns ' allowed-once'": { gate: () => ' allowed-once', outcome: ' allowed-once' },
  'gate returns undefined': { gate: () => undefined },
  'gate returns null': { gate: () => null },
  'gate returns true': { gate: () => true },
  "gate returns {outcome:'allowed-once'}": { gate: () => ({ outcome: 'allowed-once' }) },
  "gate returns ['allowed-once']": { gate: () => ['allowed-once'] },
  'gate throws synchronously': {
    gate: () => {
      throw new Error('approval transport exploded')
    },
  },
  'gate returns a rejected promise': { gate: () => Promise.reject(new Error('approval transport down')) },
  'gate rejects with a non-Error': { gate: () => Promise.reject('nope') },
  "gate resolves late to 'rejected'": { gate: () => new Promise((r) => setTimeout(() => r('rejected'), 20)) },
}

export default [
  {
    id: 'D1',
    title: 'an allowed add lands one `add` row {entryId, text, outcome allowed-once, source, sessionId}',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const before = Date.now()
      const { entry } = await p.add({ ...AW, text: 'ci runs on push', source: 'memory-tool' }, write)
      const rows = p.auditList()
      assert.ok(Array.isArray(rows))
      const adds = rows.filter((r) => r.action === 'add')
      assert.equal(adds.length, 1, 'exactly one add row')
      const r = adds[0]
      assertAuditRow(r)
      assert.equal(r.entryId, entry.id)
      assert.equal(r.text, 'ci runs on push')
      assert.equal(r.track, 'agent')
      assert.equal(r.scope, 'workspace')
      assert.equal(r.source, 'memory-tool')
      assert.equal(r.sessionId, 'conformance-session')
      assert.equal(typeof r.outcome, 'string')
      assert.ok(r.outcome.includes('allowed-once'), `outcome names the decision, got ${JSON.stringify(r.outcome)}`)
      assert.ok(r.ts >= before - 1000 && r.ts <= Date.now() + 1000)
    },
  },
  {
    id: 'D2',
    title: 'a denied add → WRITE_DENIED {outcome}, an `add-denied` row with the proposed text, no entry',
    async run({ makeProvider, write }) {
      const gate = recordingGate('rejected')
      const p = await makeProvider({ gate })
      await rejects(() => p.add({ ...UG, text: 'should not land', source: 'memory-tool' }, write), 'WRITE_DENIED', { outcome: 'rejected' })
      assert.equal(gate.calls.length, 1)
      assert.deepEqual(p.listEntries(), [])
      const rows = p.auditList()
      assert.equal(rows.filter((r) => r.action === 'add').length, 0, 'no allow row')
      const denied = rows.filter((r) => r.action === 'add-denied')
      assert.equal(denied.length, 1, 'exactly one add-denied row')
      assertAuditRow(denied[0])
      assert.equal(denied[0].text, 'should not land', 'the denied row keeps what was proposed')
      assert.equal(denied[0].entryId, null)
      assert.equal(denied[0].track, 'user')
      assert.equal(denied[0].scope, 'user-global')
      assert.equal(denied[0].sessionId, 'conformance-session')
      assert.ok(
        typeof denied[0].outcome === 'string' && denied[0].outcome.includes('rejected'),
        `denied outcome ${JSON.stringify(denied[0].outcome)}`,
      )
    },
  },
  {
    id: 'D3',
    title: "only a resolved 'allowed-once' allows: throws, rejections, 'allowed', undefined, objects… are denials with a denied row",
    async run({ makeProvider, write, dir }) {
      let i = 0
      for (const [label, { gate: answer, outcome }] of Object.entries(DENIALS)) {
        i += 1
        const calls = []
        const gate = (payload, w) => {
          calls.push(payload)
          return answer(payload, w)
        }
        const p = await makeProvider({ gate, dbPath: path.join(dir, `denial-${i}.db`) })
        const text = `denied via ${label}`
        const err = await rejects(
          () => p.add({ ...UG, text }, write),
          'WRITE_DENIED',
          outcome === undefined ? undefined : { outcome },
          label,
        )
        assert.equal(typeof err.details.outcome, 'string', `${label}: details.outcome is a string`)
        assert.notEqual(err.details.outcome, 'allowed-once', `${label}: the reported outcome is not an allow`)
        assert.equal(calls.length, 1, `${label}: the gate was asked once`)
        assert.ok(!p.listEntries().some((e) => e.text === text), `${label}: nothing lands`)
        const denied = p.auditList(1000).find((r) => r.action === 'add-denied' && r.text === text)
        assert.ok(denied, `${label}: an add-denied row exists`)
      }
    },
  },
  {
    id: 'D4',
    title: 'every write op denied → WRITE_DENIED, `<action>-denied` row, store unchanged',
    async run({ makeProvider, write }) {
      const { p, gate } = await deniedSetup(makeProvider, write, 'cancelled')
      const before = p.listEntries()
      const ops = {
        add: () => p.add({ ...UG, text: 'new text here' }, write),
        replace: () => p.replace({ ...UG, match: 'existing', text: 'replacement text' }, write),
        remove: () => p.remove({ ...UG, match: 'existing' }, write),
        consolidate: () => p.consolidate({ ...UG, matches: ['existing', 'second'], text: 'merged text' }, write),
        seed: () => p.seed([{ ...UG, text: 'seeded text' }], write),
      }
      for (const [action, op] of Object.entries(ops)) {
        gate.calls.length = 0
        await rejects(op, 'WRITE_DENIED', { outcome: 'cancelled' }, action)
        assert.equal(gate.calls.length, 1, `${action}: asked once`)
        assert.equal(gate.calls[0].action, action)
        const row = p.auditList()[0]
        assertAuditRow(row)
        assert.equal(row.action, `${action}-denied`, `${action}: newest row is ${action}-denied`)
        assert.equal(row.entryId, null)
        assert.equal(row.sessionId, 'conformance-session')
        assert.ok(row.outcome && row.outcome.includes('cancelled'))
        assert.deepEqual(p.listEntries(), before, `${action}: nothing changed`)
      }
      const rows = p.auditList(100)
      const byAction = Object.fromEntries(rows.map((r) => [r.action, r]))
      assert.equal(byAction['add-denied'].text, 'new text here')
      assert.ok(
        byAction['replace-denied'].text.includes('existing entry text') && byAction['replace-denied'].text.includes('replacement text'),
      )
      assert.ok(byAction['remove-denied'].text.includes('existing entry text'))
      assert.ok(byAction['consolidate-denied'].text.includes('merged text'))
      assert.ok(byAction['seed-denied'].text.includes('seeded text'))
    },
  },
  {
    id: 'D5',
    title: 'query with opts.sessionId lands a `recalled` row for that session',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      await p.add({ ...UG, text: 'prefers concise answers' }, write)
      const res = p.query({ text: 'concise' }, { sessionId: 'reader-session' })
      assert.equal(res.total, 1)
      const r = p.auditList()[0]
      assertAuditRow(r)
      assert.equal(r.action, 'recalled')
      assert.equal(r.sessionId, 'reader-session')
      assert.equal(r.entryId, null)
    },
  },
  {
    id: 'D6',
    title: 'replace and remove rows carry the entry id and the new / removed text',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const { entry } = await p.add({ ...UG, text: 'old wording', source: 'claude' }, write)
      await p.replace({ ...UG, match: 'old', text: 'new wording' }, write)
      let r = p.auditList()[0]
      assert.equal(r.action, 'replace')
      assert.equal(r.entryId, entry.id)
      assert.equal(r.text, 'new wording')
      assert.ok(r.outcome.includes('allowed-once'))
      await p.remove({ ...UG, match: 'new wording' }, write)
      r = p.auditList()[0]
      assert.equal(r.action, 'remove')
      assert.equal(r.entryId, entry.id)
      assert.equal(r.text, 'new wording')
      assert.ok(r.outcome.includes('allowed-once'))
    },
  },
  {
    id: 'D7',
    title: 'consolidate writes one consolidate-remove row per target and one consolidate-add row',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const a = (await p.add({ ...AW, text: 'target one' }, write)).entry
      const b = (await p.add({ ...AW, text: 'target two' }, write)).entry
      const before = p.auditList(1000).length
      const r = await p.consolidate({ ...AW, matches: ['one', 'two'], text: 'targets merged' }, write)
      const rows = p.auditList(1000)
      const fresh = rows.slice(0, rows.length - before)
      const removes = fresh.filter((x) => x.action === 'consolidate-remove')
      const adds = fresh.filter((x) => x.action === 'consolidate-add')
      assert.equal(removes.length, 2)
      assert.equal(adds.length, 1)
      assert.equal(fresh.length, 3, 'no other rows for one consolidate')
      assert.deepEqual(
        removes.map((x) => [x.entryId, x.text]).sort(),
        [
          [a.id, 'target one'],
          [b.id, 'target two'],
        ].sort(),
      )
      assert.equal(adds[0].entryId, r.entry.id)
      assert.equal(adds[0].text, 'targets merged')
      for (const x of fresh) {
        assertAuditRow(x)
        assert.ok(x.outcome.includes('allowed-once'))
      }
    },
  },
  {
    id: 'D8',
    title: 'seed writes one `seed` row plus one `add` row per entry',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const r = await p.seed(
        [
          { ...UG, text: 'seed alpha' },
          { ...AW, text: 'seed beta' },
          { ...AW, text: 'seed gamma' },
        ],
        write,
      )
      const rows = p.auditList(1000)
      const seeds = rows.filter((x) => x.action === 'seed')
      const adds = rows.filter((x) => x.action === 'add')
      assert.equal(seeds.length, 1)
      assertAuditRow(seeds[0])
      assert.ok(seeds[0].outcome.includes('allowed-once'))
      assert.equal(adds.length, 3)
      assert.deepEqual(adds.map((x) => x.entryId).sort(), r.entries.map((e) => e.id).sort())
      assert.deepEqual(adds.map((x) => x.text).sort(), ['seed alpha', 'seed beta', 'seed gamma'])
      for (const x of adds) assert.equal(x.sessionId, 'conformance-session')
    },
  },
  {
    id: 'D9',
    title: 'auditList is newest first with strictly increasing seq and honours its limit',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      for (let i = 0; i < 5; i++) await p.add({ ...UG, text: `row ${i}` }, write)
      const rows = p.auditList()
      assert.ok(rows.length >= 5)
      for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].seq > rows[i].seq, 'newest first, seq strictly decreasing')
      assert.equal(rows[0].text, 'row 4')
      const two = p.auditList(2)
      assert.equal(two.length, 2)
      assert.deepEqual(two, rows.slice(0, 2))
    },
  },
  {
    id: 'D10',
    title: 'replaying the audit ledger (add/replace/remove/consolidate rows) reconstructs the store',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...UG, text: 'fact one' }, write)
      await p.add({ ...UG, text: 'fact two' }, write)
      await p.add({ ...AW, text: 'fact three' }, write)
      await p.add({ ...AW, text: 'fact four' }, write)
      await p.replace({ ...UG, match: 'one', text: 'fact one, revised' }, write)
      await p.replace({ ...UG, match: 'revised', text: 'fact one, revised twice' }, write)
      await p.remove({ ...UG, match: 'two' }, write)
      await p.seed(
        [
          { ...AW, text: 'seeded five' },
          { track: 'agent', scope: 'user-global', text: 'seeded six' },
        ],
        write,
      )
      await p.consolidate({ ...AW, matches: ['three', 'four'], text: 'facts three and four' }, write)
      p.query({ text: 'fact' }, { sessionId: 'conformance-session' })
      gate.outcome = 'rejected'
      await rejects(() => p.add({ ...UG, text: 'denied fact' }, write), 'WRITE_DENIED', { outcome: 'rejected' })
      await rejects(() => p.remove({ ...UG, match: 'twice' }, write), 'WRITE_DENIED', { outcome: 'rejected' })
      gate.outcome = 'allowed-once'
      await p.replace({ ...AW, match: 'five', text: 'seeded five (edited)' }, write)

      const ledger = p.auditList(10000).slice().reverse()
      const state = new Map()
      for (const r of ledger) {
        switch (r.action) {
          case 'add':
          case 'replace':
          case 'consolidate-add':
            assert.ok(r.entryId, `${r.action} row has an entryId`)
            state.set(r.entryId, r.text)
            break
          case 'remove':
          case 'consolidate-remove':
            assert.ok(state.has(r.entryId), `${r.action} row removes a known entry`)
            state.delete(r.entryId)
            break
          default:
            break
        }
      }
      const actual = new Map(p.listEntries().map((e) => [e.id, e.text]))
      assert.deepEqual(
        [...state.entries()].sort(),
        [...actual.entries()].sort(),
        'the audit ledger reconstructs ids and texts of the store',
      )
      assert.deepEqual(textsOf(p), ['fact one, revised twice', 'facts three and four', 'seeded five (edited)', 'seeded six'])
    },
  },
]
