// A — entry model (spec §2, §7): fields, ids, validation, tags, UTF-16 counting.
import { assert, assertEntryShape, assertUsage, PROTOCOL_CODES, recordingGate, rejects, settle, UUID_V4, writeAs } from '../lib.mjs'

const NO_ROW = (p) => assert.deepEqual(p.listEntries(), [], 'a rejected write must leave no entry')

export default [
  {
    id: 'A1',
    title: 'add returns a complete v1 entry (UUID v4, version 1, tags, keys, counters, session)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const before = Date.now()
      const res = await p.add(
        { track: 'user', scope: 'user-global', text: 'prefers tabs', source: 'conformance', tags: ['style', 'editor'] },
        write,
      )
      const after = Date.now()
      const e = res.entry
      assertEntryShape(e, 'entry')
      assert.match(e.id, UUID_V4)
      assert.equal(e.track, 'user')
      assert.equal(e.scope, 'user-global')
      assert.equal(e.text, 'prefers tabs')
      assert.equal(e.source, 'conformance')
      assert.deepEqual(e.tags, ['style', 'editor'])
      assert.equal(e.version, 1)
      assert.equal(e.workspaceKey, '', 'user-global entries have workspaceKey ""')
      assert.equal(e.agentKey, 'conformance', "agentKey defaults to the writer's agentPreset key")
      assert.equal(e.lastRecalled, null)
      assert.equal(e.recallCount, 0)
      assert.equal(e.sessionId, 'conformance-session')
      assert.ok(e.createdAt >= before - 1000 && e.createdAt <= after + 1000, 'createdAt is epoch ms of the write')
      assert.ok(e.updatedAt >= e.createdAt)
      assertUsage(res.usage, { track: 'user', scope: 'user-global', used: 'prefers tabs'.length, limit: 2000 })
      const listed = p.listEntries()
      assert.equal(listed.length, 1)
      assert.deepEqual(listed[0], e, 'listEntries returns the same entry')
    },
  },
  {
    id: 'A2',
    title: 'every add gets a fresh UUID v4; workspace entries carry the writer workspace key',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const ids = new Set()
      let wsKey = null
      for (let i = 0; i < 5; i++) {
        const { entry } = await p.add({ track: 'agent', scope: 'workspace', text: `fact ${i}` }, write)
        assert.match(entry.id, UUID_V4)
        ids.add(entry.id)
        assert.equal(typeof entry.workspaceKey, 'string')
        assert.ok(entry.workspaceKey.length > 0, 'a workspace entry written by a session with a cwd has a non-empty workspaceKey')
        if (wsKey === null) wsKey = entry.workspaceKey
        assert.equal(entry.workspaceKey, wsKey, 'the same session cwd gives the same workspaceKey')
      }
      assert.equal(ids.size, 5, 'ids are unique')
      const other = await p.add(
        { track: 'agent', scope: 'workspace', text: 'elsewhere' },
        writeAs({ preset: 'conformance', cwd: 'C:/conformance/other-ws' }),
      )
      assert.notEqual(other.entry.workspaceKey, wsKey, 'another cwd gives another workspaceKey')
    },
  },
  {
    id: 'A3',
    title: 'bad track → INVALID_INPUT, no row, gate not asked',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      for (const track of ['bogus', 'USER', '', null, undefined, 1, {}, ['user']]) {
        await rejects(
          () => p.add({ track, scope: 'user-global', text: 'x' }, write),
          'INVALID_INPUT',
          undefined,
          `track ${JSON.stringify(track)}`,
        )
      }
      NO_ROW(p)
      assert.equal(gate.calls.length, 0, 'invalid input is refused before approval')
    },
  },
  {
    id: 'A4',
    title: 'bad scope → INVALID_INPUT, no row',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      for (const scope of ['global', 'Workspace', '', null, undefined, 2, true]) {
        await rejects(() => p.add({ track: 'user', scope, text: 'x' }, write), 'INVALID_INPUT', undefined, `scope ${JSON.stringify(scope)}`)
      }
      NO_ROW(p)
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'A5',
    title: 'bad text (empty, non-string) → INVALID_INPUT, no row',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      for (const text of ['', null, undefined, 42, ['a'], { text: 'a' }, true]) {
        await rejects(() => p.add({ track: 'user', scope: 'user-global', text }, write), 'INVALID_INPUT', undefined, `text ${String(text)}`)
      }
      await rejects(() => p.add({ track: 'user', scope: 'user-global', text: 10n }, write), 'INVALID_INPUT', undefined, 'text BigInt')
      NO_ROW(p)
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'A6',
    title: 'non-object inputs of any JS type → INVALID_INPUT (never a crash)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      for (const input of [null, undefined, 'text', 7, [], true, () => {}]) {
        await rejects(() => p.add(input, write), 'INVALID_INPUT', undefined, `add(${typeof input})`)
      }
      for (const inputs of [[], null, 'x', {}, [null], [{ track: 'user', scope: 'user-global', text: '' }]]) {
        await rejects(() => p.seed(inputs, write), 'INVALID_INPUT', undefined, `seed(${JSON.stringify(inputs)})`)
      }
      NO_ROW(p)
    },
  },
  {
    id: 'A7',
    title: 'write without an owning agent session → WRITE_REQUIRES_AGENT for every write op',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ track: 'user', scope: 'user-global', text: 'keep me' }, write)
      gate.calls.length = 0
      const contexts = [undefined, null, {}, { agent: null }, { agent: undefined }, 'agent']
      const ops = {
        add: (w) => p.add({ track: 'user', scope: 'user-global', text: 'x' }, w),
        replace: (w) => p.replace({ track: 'user', scope: 'user-global', match: 'keep', text: 'y' }, w),
        remove: (w) => p.remove({ track: 'user', scope: 'user-global', match: 'keep' }, w),
        consolidate: (w) => p.consolidate({ track: 'user', scope: 'user-global', matches: ['keep'], text: 'z' }, w),
        seed: (w) => p.seed([{ track: 'user', scope: 'user-global', text: 's' }], w),
      }
      for (const [name, op] of Object.entries(ops)) {
        for (const w of contexts) {
          await rejects(() => op(w), 'WRITE_REQUIRES_AGENT', undefined, `${name} with write=${JSON.stringify(w)}`)
        }
      }
      assert.equal(gate.calls.length, 0, 'no approval is asked without an agent')
      assert.deepEqual(
        p.listEntries().map((e) => e.text),
        ['keep me'],
      )
    },
  },
  {
    id: 'A8',
    title: 'agent without a session (or a session without id) → WRITE_REQUIRES_AGENT',
    async run({ makeProvider }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      for (const w of [
        { agent: {} },
        { agent: { session: null } },
        { agent: { session: {} } },
        { agent: { session: { header: { cwd: '/x', agentPreset: 'a' } } } },
      ]) {
        await rejects(
          () => p.add({ track: 'user', scope: 'user-global', text: 'x' }, w),
          'WRITE_REQUIRES_AGENT',
          undefined,
          JSON.stringify(w),
        )
      }
      NO_ROW(p)
      assert.equal(gate.calls.length, 0)
    },
  },
  {
    id: 'A9',
    title: 'tags are trimmed and deduped (first occurrence kept); 32 chars and 16 tags allowed',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const a = await p.add({ track: 'user', scope: 'user-global', text: 't1', tags: ['a ', 'a', ' b', 'b', 'c'] }, write)
      assert.deepEqual(a.entry.tags, ['a', 'b', 'c'])
      const t32 = 'x'.repeat(32)
      const b = await p.add({ track: 'user', scope: 'user-global', text: 't2', tags: [t32, `  ${t32}  `] }, write)
      assert.deepEqual(b.entry.tags, [t32])
      const sixteen = Array.from({ length: 16 }, (_, i) => `tag${i}`)
      const c = await p.add({ track: 'user', scope: 'user-global', text: 't3', tags: sixteen }, write)
      assert.deepEqual(c.entry.tags, sixteen)
      const dup17 = [...sixteen, 'tag0 ']
      const d = await p.add({ track: 'user', scope: 'user-global', text: 't4', tags: dup17 }, write)
      assert.deepEqual(d.entry.tags, sixteen, '17 tags that dedupe to 16 are allowed')
      const e = await p.add({ track: 'user', scope: 'user-global', text: 't5' }, write)
      assert.deepEqual(e.entry.tags, [], 'omitted tags give []')
      const listed = new Map(p.listEntries().map((x) => [x.text, x.tags]))
      assert.deepEqual(listed.get('t1'), ['a', 'b', 'c'], 'normalized tags are stored')
    },
  },
  {
    id: 'A10',
    title: 'bad tags (33 chars, 17 tags, control chars, empty, non-strings) → INVALID_INPUT, no row',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const bad = {
        '33-char tag': ['x'.repeat(33)],
        '17 tags': Array.from({ length: 17 }, (_, i) => `t${i}`),
        'U+0001': ['a\u0001b'],
        'newline inside': ['a\nb'],
        'tab inside': ['a\tb'],
        'U+007F': ['del\u007f'],
        'U+0000': ['nul\u0000'],
        'empty tag': [''],
        'blank tag': ['   '],
        'number tag': [1],
        'null tag': [null],
        'tags not an array': 'a,b',
        'tags an object': { a: 1 },
        '17 astral emoji (34 units)': ['😀'.repeat(17)],
      }
      for (const [label, tags] of Object.entries(bad)) {
        await rejects(() => p.add({ track: 'user', scope: 'user-global', text: 'x', tags }, write), 'INVALID_INPUT', undefined, label)
      }
      NO_ROW(p)
      assert.equal(gate.calls.length, 0)
      const ok = await p.add({ track: 'user', scope: 'user-global', text: 'x', tags: ['😀'.repeat(16)] }, write)
      assert.deepEqual(ok.entry.tags, ['😀'.repeat(16)], '16 astral emoji = 32 UTF-16 units is allowed')
    },
  },
  {
    id: 'A11',
    title: 'UTF-16 counting: an astral emoji counts 2, a CJK ideograph counts 1 in budgets',
    async run({ makeProvider, write }) {
      const p = await makeProvider({ budgets: { user: { userGlobal: 10, workspace: 10 } } })
      const emoji = '😀'.repeat(5) // 10 UTF-16 units, 5 code points
      const r1 = await p.add({ track: 'user', scope: 'user-global', text: emoji }, write)
      assertUsage(r1.usage, { track: 'user', scope: 'user-global', used: 10, limit: 10 })
      await rejects(() => p.add({ track: 'user', scope: 'user-global', text: 'a' }, write), 'BUDGET_EXCEEDED', {
        track: 'user',
        scope: 'user-global',
        used: 10,
        limit: 10,
        needed: 11,
      })
      const cjk = '记忆'.repeat(5) // 10 units
      const r2 = await p.add({ track: 'user', scope: 'workspace', text: cjk }, write)
      assertUsage(r2.usage, { track: 'user', scope: 'workspace', used: 10, limit: 10 })
      await rejects(() => p.add({ track: 'user', scope: 'workspace', text: '😀' }, write), 'BUDGET_EXCEEDED', {
        track: 'user',
        scope: 'workspace',
        used: 10,
        limit: 10,
        needed: 12,
      })
      const rows = p.budgets()
      assert.equal(rows[0].used, 10)
      assert.equal(rows[1].used, 10)
    },
  },
  {
    id: 'A12',
    title: 'text is stored verbatim (no trimming; whitespace, newlines and unicode kept)',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const text = '  line one\n\tline two — ünïcödé 中文 😀  '
      const { entry } = await p.add({ track: 'agent', scope: 'user-global', text }, write)
      assert.equal(entry.text, text)
      assert.equal(p.listEntries()[0].text, text)
      assert.equal(p.budgets()[2].used, text.length)
    },
  },
  {
    id: 'A13',
    title: 'inputs of any JS type (Symbol, BigInt, functions, cycles, sparse arrays, NaN) give coded errors, never a crash',
    async run({ makeProvider, write }) {
      const p = await makeProvider()
      const UGX = { track: 'user', scope: 'user-global' }
      const cyclic = { ...UGX, text: 'cyclic input' }
      cyclic.self = cyclic
      const weird = {
        'text Symbol': () => p.add({ ...UGX, text: Symbol('x') }, write),
        'text Date': () => p.add({ ...UGX, text: new Date() }, write),
        'track Symbol': () => p.add({ track: Symbol('user'), scope: 'user-global', text: 'x' }, write),
        'tags [BigInt]': () => p.add({ ...UGX, text: 'x', tags: [1n] }, write),
        'tags function': () => p.add({ ...UGX, text: 'x', tags: () => ['a'] }, write),
        'tags sparse': () => p.add({ ...UGX, text: 'x', tags: new Array(3) }, write),
        'extra BigInt field': () => p.add({ ...UGX, text: 'extra field', extra: 5n }, write),
        'cyclic extra field': () => p.add(cyclic, write),
        'session id Symbol': () => p.add({ ...UGX, text: 'x' }, { agent: { session: { id: Symbol('s') } } }),
        'session id BigInt': () => p.add({ ...UGX, text: 'x' }, { agent: { session: { id: 5n } } }),
        'seed sparse': () => p.seed(new Array(3), write),
        'seed of Symbols': () => p.seed([Symbol('a')], write),
        'replace match Symbol': () => p.replace({ ...UGX, match: Symbol('m'), text: 'x' }, write),
        'remove match BigInt': () => p.remove({ ...UGX, match: 1n }, write),
        'consolidate matches sparse': () => p.consolidate({ ...UGX, matches: new Array(2), text: 'x' }, write),
        'query limit NaN': () => p.query({ limit: NaN }),
        'query limit -5': () => p.query({ limit: -5 }),
        'query limit 1e300': () => p.query({ limit: 1e300 }),
        'query limit BigInt': () => p.query({ limit: 5n }),
        'query filter string': () => p.query('text'),
        'query text number': () => p.query({ text: 5 }),
        'query opts string': () => p.query({}, 'opts'),
        'auditList(-1)': () => p.auditList(-1),
        "auditList('x')": () => p.auditList('x'),
        'auditList(BigInt)': () => p.auditList(5n),
      }
      for (const [label, fn] of Object.entries(weird)) {
        const r = await settle(fn)
        if (!r.ok) {
          const e = r.error
          assert.ok(e && typeof e === 'object', `${label}: threw a non-object ${String(e)}`)
          assert.ok(PROTOCOL_CODES.includes(e.code), `${label}: threw an uncoded error: ${e?.name}: ${e?.message}`)
          assert.ok(e.details && typeof e.details === 'object', `${label}: ${e.code} without .details`)
        } else if (label.startsWith('query')) {
          assert.ok(Array.isArray(r.value.entries) && Number.isInteger(r.value.total), `${label}: a query result`)
          assert.ok(r.value.entries.length <= 1000, `${label}: never more than 1000 entries`)
        }
      }
      for (const e of p.listEntries()) assertEntryShape(e, 'entry written from odd input')
      assert.ok(
        p.listEntries().every((e) => typeof e.text === 'string' && e.text.length > 0),
        'only valid texts were stored',
      )
    },
  },
]
