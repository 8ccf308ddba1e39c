// Adapter registry + the four built-in adapters: golden fixtures, malformed inputs, round trips.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { createDefaultRegistry, MemoryAdapterRegistry, mem0Adapter } from '../lib/adapters/index.mjs'
import { parseIndex, parseNote } from '../lib/adapters/memory-standard.mjs'
import { entryRefusal } from '../lib/envelope.mjs'
import { native } from '../lib/native.mjs'
import { memoryError } from '../lib/errors.mjs'
import { BAD, CASES, DIR } from './fixtures/adapters/cases.mjs'

const registry = createDefaultRegistry()
const ADAPTER_IDS = ['claude-code-memory-md', 'hermes-memory-md', 'mem0', 'memory-standard']

let seq = 0
/** Shape adapter inputs like stored entries (what export receives). */
const stored = (inputs, keys = {}) =>
  inputs.map((x) => ({
    id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    track: x.track,
    scope: x.scope,
    workspaceKey: x.workspaceKey ?? (x.scope === 'workspace' ? (keys.workspaceKey ?? '/work/proj') : ''),
    agentKey: x.agentKey ?? keys.agentKey ?? '',
    text: x.text,
    source: x.source ?? 'dsh-memento',
    tags: x.tags ?? [],
    version: 1,
    createdAt: 1780000000000,
    updatedAt: 1780000000000 + seq,
    lastRecalled: null,
    recallCount: 0,
    sessionId: 's1',
  }))

/** Re-import whatever an adapter exported (file maps are read the way the CLI reads them). */
function reimport(id, exported) {
  if (id === 'memory-standard') return registry.adapt(id, { files: exported.files }).entries
  if (id === 'hermes-memory-md') {
    return Object.entries(exported.files)
      .filter(([, t]) => t)
      .flatMap(([name, t]) => registry.adapt(id, { text: t, file: name }).entries)
  }
  if (id === 'claude-code-memory-md') return registry.adapt(id, exported.text).entries
  return registry.adapt(id, JSON.stringify(exported)).entries
}

const pick = (e, fields) => Object.fromEntries(fields.map((f) => [f, f === 'tags' ? (e.tags ?? []) : e[f]]))
const sortKey = (o) => JSON.stringify(o)
const sameSet = (a, b, fields) =>
  assert.deepEqual(
    a
      .map((e) => pick(e, fields))
      .map(sortKey)
      .sort(),
    b
      .map((e) => pick(e, fields))
      .map(sortKey)
      .sort(),
  )

/** A store-like sample covering every layer, shared/private keys, tags, multi-line and CJK text. */
const SAMPLE = [
  { track: 'user', scope: 'user-global', text: 'Prefers short answers', tags: ['style'], source: 'cli', agentKey: '' },
  {
    track: 'user',
    scope: 'workspace',
    text: 'On this repo, commit messages are in English.\nPR titles too.',
    tags: ['git', 'conventions'],
    workspaceKey: '/work/proj',
    agentKey: 'reviewer',
  },
  { track: 'agent', scope: 'user-global', text: '用户喜欢用中文交流', tags: ['语言'], source: 'mem0-import' },
  {
    track: 'agent',
    scope: 'workspace',
    text: 'Run `npm test` before pushing:\n\n  npm test\n  npm run lint',
    tags: [],
    workspaceKey: '/work/proj',
    agentKey: '',
  },
  {
    track: 'agent',
    scope: 'workspace',
    text: 'Deploy region is us-east-1',
    tags: ['infra', 'aws', 'deploy'],
    workspaceKey: '/work/proj',
    agentKey: 'ops',
  },
]

describe('MemoryAdapterRegistry', () => {
  it('lists the built-ins sorted by id with full descriptors', () => {
    const list = registry.list()
    assert.deepEqual(
      list.map((a) => a.id),
      ADAPTER_IDS,
    )
    for (const a of list) {
      assert.deepEqual(Object.keys(a), ['id', 'name', 'description', 'version', 'importFormats', 'exportFormat'])
      assert.match(a.description, /round trip/i, `${a.id} says what a round trip loses`)
    }
  })

  it('registers, disposes, and refuses duplicates and malformed adapters with INVALID_INPUT', () => {
    const r = new MemoryAdapterRegistry()
    const a = {
      id: 'toy',
      name: 'Toy',
      description: 'toy',
      version: '1',
      importFormats: ['toy'],
      exportFormat: 'toy',
      adapt: () => ({ entries: [] }),
      export: () => ({}),
    }
    const dispose = r.register(a)
    assert.equal(r.get('toy'), a)
    assert.throws(
      () => r.register({ ...a }),
      (e) => e.code === 'INVALID_INPUT' && /already registered/.test(e.message),
    )
    dispose()
    assert.equal(r.get('toy'), undefined)
    dispose() // idempotent
    for (const bad of [
      null,
      { ...a, id: 'Bad_Id' },
      { ...a, name: '' },
      { ...a, version: 1 },
      { ...a, importFormats: [] },
      { ...a, importFormats: [''] },
      { ...a, exportFormat: '' },
      { ...a, adapt: undefined },
      { ...a, export: 'x' },
    ]) {
      assert.throws(
        () => r.register(bad),
        (e) => e.code === 'INVALID_INPUT' && typeof e.details === 'object',
      )
    }
    // a disposer of a replaced adapter does not remove the newer one
    const d1 = r.register(a)
    d1()
    const b = { ...a }
    r.register(b)
    d1()
    assert.equal(r.get('toy'), b)
  })

  it('unknown ids are ADAPTER_NOT_FOUND; converter throws become ADAPTER_PAYLOAD; MemoryErrors pass through', () => {
    const r = new MemoryAdapterRegistry()
    assert.throws(
      () => r.adapt('nope', ''),
      (e) => e.code === 'ADAPTER_NOT_FOUND' && e.details.adapterId === 'nope',
    )
    assert.throws(
      () => r.export('nope', []),
      (e) => e.code === 'ADAPTER_NOT_FOUND',
    )
    const base = { name: 'x', description: 'x', version: '1', importFormats: ['x'], exportFormat: 'x' }
    r.register({
      ...base,
      id: 'boom',
      adapt: () => {
        throw new TypeError('kaboom')
      },
      export: () => {
        throw new Error('nope')
      },
    })
    assert.throws(
      () => r.adapt('boom', 'x'),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.message === 'adapter "boom": adapt failed: kaboom' && e.details.adapterId === 'boom',
    )
    assert.throws(
      () => r.export('boom', []),
      (e) => e.code === 'ADAPTER_PAYLOAD' && /export failed: nope/.test(e.message),
    )
    const mine = memoryError('ADAPTER_PAYLOAD', 'adapter "own": line 9: bad', { adapterId: 'own', line: 9 })
    r.register({
      ...base,
      id: 'own',
      adapt: () => {
        throw mine
      },
      export: () => [],
    })
    assert.throws(
      () => r.adapt('own', 'x'),
      (e) => e === mine,
    )
    r.register({ ...base, id: 'junk', adapt: () => 'not entries', export: () => [] })
    assert.throws(
      () => r.adapt('junk', 'x'),
      (e) => e.code === 'ADAPTER_PAYLOAD' && /must return \{entries/.test(e.message),
    )
  })

  it('built-in adapters are pure converters (no fs, child_process or network imports)', () => {
    for (const f of fs.readdirSync(new URL('../lib/adapters/', import.meta.url))) {
      const src = fs.readFileSync(new URL(`../lib/adapters/${f}`, import.meta.url), 'utf8')
      assert.doesNotMatch(src, /from 'node:(fs|child_process|net|http|https|fs\/promises)'/, f)
    }
  })
})

describe('golden fixtures', () => {
  for (const c of CASES) {
    it(`${c.adapter}: ${c.name}`, () => {
      const got = registry.adapt(c.adapter, c.payload(), c.options)
      const want = JSON.parse(fs.readFileSync(path.join(DIR, 'expected', `${c.name}.json`), 'utf8'))
      assert.deepEqual({ entries: got.entries, warnings: got.warnings }, want)
      assert.equal(got.locations.length, got.entries.length)
      // every converted entry is valid protocol input (what seed will accept: the screen parses
      // each as seed does, and throws on the first it refuses)
      native.screenEntries(got.entries)
    })
  }

  it('golden fixtures survive adapt -> export -> adapt (fields each format holds)', () => {
    const holds = {
      mem0: ['track', 'scope', 'text', 'tags', 'source'],
      'memory-standard': ['track', 'scope', 'text', 'tags', 'source'],
      'claude-code-memory-md': ['track', 'scope', 'text', 'tags'],
      'hermes-memory-md': ['track', 'text'],
    }
    for (const c of CASES) {
      const first = registry.adapt(c.adapter, c.payload(), c.options).entries
      const again = reimport(c.adapter, registry.export(c.adapter, stored(first)))
      sameSet(again, first, holds[c.adapter])
    }
  })
})

describe('malformed payloads fail loudly with a location', () => {
  for (const b of BAD) {
    it(b.name, () => {
      assert.throws(
        () => registry.adapt(b.adapter, b.payload(), b.options),
        (e) => {
          assert.equal(e.code, 'ADAPTER_PAYLOAD')
          assert.ok(e.message.startsWith(`adapter "${b.adapter}": `), e.message)
          assert.equal(e.details.adapterId, b.adapter)
          for (const [k, v] of Object.entries(b.details)) assert.equal(e.details[k], v, `${k} in ${JSON.stringify(e.details)}`)
          if (b.details.line) assert.match(e.message, new RegExp(`line ${b.details.line}\\b`))
          return true
        },
      )
    })
  }

  it('converted entries that break protocol rules fail as ADAPTER_PAYLOAD with the source line', () => {
    const entries = [
      { track: 'user', scope: 'user-global', text: 'ok' },
      { track: 'user', scope: 'nowhere', text: 'x' },
    ]
    let refused
    try {
      native.screenEntries(entries)
    } catch (e) {
      refused = e
    }
    assert.deepEqual(refused?.details, { index: 1 }, 'the provider names the entry')
    const e = entryRefusal(refused, [{ line: 2 }, { line: 7 }], 'mem0')
    assert.ok(
      e.code === 'ADAPTER_PAYLOAD' &&
        e.details.line === 7 &&
        /line 7: converted entry 2 is not valid: invalid memory scope/.test(e.message),
      e.message,
    )
  })
})

describe('round trips from store entries (what each description promises)', () => {
  const entries = stored(SAMPLE)

  it('mem0 keeps text, tags, track, scope, keys and source', () => {
    const out = mem0Adapter.export(entries)
    assert.ok(Array.isArray(out.results) && out.results[0].hash.length === 32)
    const back = reimport('mem0', out)
    assert.deepEqual(
      back.map((e) => pick(e, ['track', 'scope', 'text', 'tags', 'source', 'workspaceKey', 'agentKey'])),
      entries.map((e) => pick(e, ['track', 'scope', 'text', 'tags', 'source', 'workspaceKey', 'agentKey'])),
    )
  })

  it('memory-standard keeps text, tags, track, scope, keys and source, and writes valid mm v1', () => {
    const out = registry.export('memory-standard', entries)
    const { header, entries: idx } = parseIndex(out.files['MEMORY.md'])
    assert.deepEqual([header['mm-version'], header['mm-kind'], header['mm-id']], ['1', 'index', 'local'])
    assert.deepEqual(
      idx.map((e) => e.topic),
      [...idx.map((e) => e.topic)].sort(),
    )
    for (const e of idx) {
      const note = parseNote(out.files[e.file])
      assert.equal(note.meta.kind, 'note')
      assert.equal(note.meta.topic, e.topic)
      assert.equal(`${Array.from(note.body).length}/4000`, `${e.budget[0]}/${e.budget[1]}`)
    }
    assert.ok(out.usage.lines <= 200 && out.usage.bytes <= 25600)
    const back = reimport('memory-standard', out)
    sameSet(back, entries, ['track', 'scope', 'text', 'tags', 'source', 'workspaceKey', 'agentKey'])
  })

  it('memory-standard falls back to mm tags + mm:<topic> once an mm writer dropped the mm-dsh line', () => {
    const out = registry.export(
      'memory-standard',
      stored([{ track: 'user', scope: 'workspace', text: 'Deploy region is us-east-1', tags: ['Infra Ops'] }]),
    )
    const files = Object.fromEntries(Object.entries(out.files).map(([k, v]) => [k, v.replace(/^> mm-dsh:.*\n/m, '')]))
    const [e] = registry.adapt('memory-standard', { files }).entries
    assert.deepEqual(e, {
      track: 'agent',
      scope: 'user-global',
      text: 'Deploy region is us-east-1',
      source: 'memory-standard',
      tags: ['infra-ops', 'mm:deploy-region-is-us-east-1'],
    })
  })

  it('memory-standard export checks mm caps before returning anything (never truncates)', () => {
    const many = stored(Array.from({ length: 40 }, (_, i) => ({ track: 'agent', scope: 'user-global', text: `fact number ${i}` })))
    assert.throws(
      () => registry.export('memory-standard', many),
      (e) => e.code === 'ADAPTER_PAYLOAD' && /E_INDEX_BUDGET_EXCEEDED/.test(e.message) && e.details.usage.lines > 200,
    )
    const big = stored([{ track: 'agent', scope: 'user-global', text: 'x'.repeat(4001) }])
    assert.throws(
      () => registry.export('memory-standard', big),
      (e) => /E_WRITE_BUDGET_EXCEEDED/.test(e.message),
    )
    // distinct topics even when texts slug the same; CJK-only text gets entry-<id8>
    const same = registry.export(
      'memory-standard',
      stored([
        { track: 'user', scope: 'user-global', text: 'Same start here' },
        { track: 'user', scope: 'user-global', text: 'Same start here!' },
        { track: 'user', scope: 'user-global', text: '只有中文' },
      ]),
    )
    assert.deepEqual(Object.keys(same.files).sort(), [
      'MEMORY.md',
      'memories/entry-00000000.md',
      'memories/same-start-here-2.md',
      'memories/same-start-here.md',
    ])
  })

  it('claude-code keeps text, track, scope and tags (order across tag groups may change)', () => {
    const out = registry.export('claude-code-memory-md', entries)
    assert.match(out.text, /^# dsh-memento memory: user\/user-global$/m)
    const back = reimport('claude-code-memory-md', out)
    sameSet(back, entries, ['track', 'scope', 'text', 'tags'])
  })

  it('claude-code keeps the first five tags and reports the rest', () => {
    const out = registry.export(
      'claude-code-memory-md',
      stored([{ track: 'user', scope: 'user-global', text: 't', tags: ['a', 'b', 'c', 'd', 'e', 'f'] }]),
    )
    assert.equal(out.warnings.length, 1)
    assert.deepEqual(reimport('claude-code-memory-md', out)[0].tags, ['a', 'b', 'c', 'd', 'e'])
  })

  it('hermes keeps text and track (USER.md/MEMORY.md), and refuses a text containing the separator', () => {
    const out = registry.export('hermes-memory-md', entries)
    assert.deepEqual(Object.keys(out.files), ['MEMORY.md', 'USER.md'])
    assert.match(out.files['USER.md'], /\n§\n/)
    const back = reimport('hermes-memory-md', out)
    sameSet(back, entries, ['track', 'text'])
    assert.ok(back.every((e) => e.scope === 'user-global' && !e.tags))
    assert.throws(
      () => registry.export('hermes-memory-md', stored([{ track: 'user', scope: 'user-global', text: 'a\n§\nb' }])),
      (e) => e.code === 'ADAPTER_PAYLOAD',
    )
    const over = registry.export('hermes-memory-md', stored([{ track: 'user', scope: 'user-global', text: 'y'.repeat(1400) }]))
    assert.equal(over.files['USER.md'].length, 1401, 'never cut')
    assert.match(over.warnings[0].message, /1375/)
  })

  it('claude-code: a long heading becomes several tags split between words (no word lost), with a warning, never a failure', () => {
    const res = registry.adapt('claude-code-memory-md', `## ${'Very long heading '.repeat(4)}\n- fact\n`)
    assert.deepEqual(res.entries[0].tags, ['Very long heading Very long', 'heading Very long heading Very', 'long heading'])
    assert.match(res.warnings[0].message, /longer than a tag .*full heading is kept in the source/)
    assert.equal(res.warnings[0].line, 1)
  })
})

describe('real-world variations (formats as other tools actually write them)', () => {
  it('hermes: CRLF, BOM, spaced "§" lines, a trailing separator, and a single-entry file with bullets', () => {
    const r = registry.adapt('hermes-memory-md', {
      text: '\uFEFFfirst entry\r\n  §  \r\nsecond\r\n- with a bullet\r\n§\r\n',
      file: 'USER.md',
    })
    assert.deepEqual(
      r.entries.map((e) => [e.track, e.text]),
      [
        ['user', 'first entry'],
        ['user', 'second\n- with a bullet'],
      ],
    )
    const one = registry.adapt('hermes-memory-md', 'Project notes:\n- uses pnpm\n- CI on GitHub')
    assert.deepEqual(
      one.entries.map((e) => e.text),
      ['Project notes:\n- uses pnpm\n- CI on GitHub'],
    )
    assert.throws(
      () => registry.adapt('hermes-memory-md', { text: 'x', form: 'weird' }),
      (e) => e.code === 'ADAPTER_PAYLOAD',
    )
  })

  it('mem0: JSON Lines exports, platform "categories", "text" items and paginated results', () => {
    const jsonl = '{"id":"1","memory":"likes tea","categories":["food"],"user_id":"u"}\n\n{"id":"2","text":"agent note","agent_id":"a"}\n'
    assert.deepEqual(
      registry.adapt('mem0', jsonl).entries.map((e) => [e.track, e.text, e.tags]),
      [
        ['user', 'likes tea', ['food', 'user:u']],
        ['agent', 'agent note', ['agent:a']],
      ],
    )
    assert.throws(
      () => registry.adapt('mem0', '{"id":"1","memory":"ok"}\n{"id":"2","memory":""}\n'),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.line === 2,
    )
    const page = { count: 2, next: null, previous: null, results: [{ memory: 'p1' }, { memory: 'p2' }] }
    assert.equal(registry.adapt('mem0', page).entries.length, 2)
  })

  it('mem0: only ADD and UPDATE results land, with their new text; DELETE and NONE never bring a fact back', () => {
    const r = registry.adapt('mem0', {
      results: [
        { id: '1', memory: 'likes tea', event: 'ADD' },
        { id: '2', memory: 'lives in Paris', event: 'DELETE' },
        { id: '3', memory: 'likes jazz', event: 'NONE' },
        { id: '4', memory: 'lives in Lyon', previous_memory: 'lives in Paris', event: 'UPDATE' },
      ],
    })
    assert.deepEqual(
      r.entries.map((e) => e.text),
      ['likes tea', 'lives in Lyon'],
    )
    assert.match(r.warnings.map((w) => w.message).join('\n'), /not imported: 1 DELETE result .*1 NONE result/)
    assert.throws(
      () => registry.adapt('mem0', { results: [{ id: '2', memory: 'gone', event: 'DELETE' }] }),
      (e) => e.code === 'ADAPTER_PAYLOAD' && /no memory to import: 1 DELETE/.test(e.message),
    )
  })

  it('mem0: the CLI --json output, one get() object and the platform add response import', () => {
    const cli = { status: 'success', command: 'list', data: [{ id: '1', memory: 'from the CLI', user_id: 'alice' }] }
    assert.deepEqual(
      registry.adapt('mem0', cli).entries.map((e) => [e.text, e.tags]),
      [['from the CLI', ['user:alice']]],
    )
    const one = {
      id: '1',
      memory: 'one get()',
      hash: 'h',
      metadata: { category: 'food' },
      user_id: 'alice',
      created_at: '2024-01-01T00:00:00Z',
    }
    assert.deepEqual(
      registry.adapt('mem0', one).entries.map((e) => [e.text, e.tags]),
      [['one get()', ['food', 'user:alice']]],
    )
    const added = { results: [{ id: '1', event: 'ADD', data: { memory: 'platform add' } }] }
    assert.deepEqual(
      registry.adapt('mem0', added).entries.map((e) => e.text),
      ['platform add'],
    )
    assert.throws(
      () => registry.adapt('mem0', { status: 'success', command: 'get', data: { id: '1', memory: '' } }),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.path === '/data',
    )
  })

  it('mem0: a paginated get_all page and a dump mixing identities are warned about', () => {
    const page = registry.adapt('mem0', {
      count: 30,
      next: 'https://api.mem0.ai/v1/memories/?page=2',
      previous: null,
      results: [{ memory: 'p1' }],
    })
    assert.deepEqual(
      page.entries.map((e) => e.text),
      ['p1'],
    )
    assert.match(
      page.warnings[0].message,
      /one page of a paginated get_all \(1 of 30 memories; next: https:\/\/api\.mem0\.ai\/v1\/memories\/\?page=2\): only this page is imported/,
    )
    const group = registry.adapt('mem0', [
      { memory: 'likes tea', user_id: 'alice' },
      { memory: 'hates tea', user_id: 'bob', actor_id: 'bob-phone' },
    ])
    assert.deepEqual(
      group.entries.map((e) => e.tags),
      [['user:alice'], ['user:bob', 'actor:bob-phone']],
    )
    assert.match(group.warnings.map((w) => w.message).join('\n'), /2 different mem0 user identities mix in this payload \(alice, bob\)/)
  })

  it('claude-code: setext headings, tables, multi-line comments, rule frontmatter, numbered continuations', () => {
    const md =
      '---\npaths: ["src/**"]\n---\nTitle\n=====\n\nBuild\n-----\n<!--\n## hidden\n-->\n| cmd | what |\n|---|---|\n| make | build |\n\n1. first\n   more\n2) second\n'
    const r = registry.adapt('claude-code-memory-md', md)
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags]),
      [
        ['| cmd | what |\n|---|---|\n| make | build |', ['Title', 'Build']],
        ['1. first\nmore', ['Title', 'Build']],
        ['2) second', ['Title', 'Build']],
      ],
    )
    assert.match(r.warnings[0].message, /paths/)
    assert.deepEqual(
      [r.warnings[1].line, r.warnings[1].message],
      [9, 'HTML comments (notes for people editing the file) were not imported: line 9'],
    )
  })

  it('memory-standard: CRLF files, an index without header, custom note paths, case-insensitive lookup', () => {
    const index = '## Topic.One\r\n- **summary:** first\r\n- **file:** notes/custom.md\r\n\r\n## two\r\n- **tags:** A b, C；d\r\n'
    const files = {
      'MEMORY.md': index,
      'notes/custom.md': 'Body one\r\n',
      'memories/TWO.md': '# two\r\n\r\n> mm-kind: note\r\n\r\nBody two\r\n',
    }
    const r = registry.adapt('memory-standard', { files })
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags]),
      [
        ['first\nBody one', ['mm:Topic.One']],
        ['Body two', ['a-b', 'c', 'd', 'mm:two']],
      ],
    )
    assert.deepEqual(r.warnings, [])
    assert.throws(
      () => registry.adapt('memory-standard', { files: { 'MEMORY.md': '> mm-version: 2\n' } }),
      (e) => /mm-version/.test(e.message),
    )
    assert.throws(
      () => registry.adapt('memory-standard', { files: {} }),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.file === 'MEMORY.md',
    )
  })
})

// Each input below makes one step quadratic if written naively (the step is named in the test); the 10 s
// bound guards against blocking the dsh thread, it is not a speed target.
describe('adapters stay linear on hostile input', () => {
  const timed = (run) => {
    const t0 = performance.now()
    const r = run()
    const ms = performance.now() - t0
    assert.ok(ms < 10_000, `${Math.round(ms)} ms`)
    return r
  }

  it('memory-standard stays linear on 15,000 topics whose notes differ in case (each topic searched every file)', () => {
    const index = Array.from({ length: 15_000 }, (_, i) => `## t${i}`).join('\n')
    const notes = Object.fromEntries(Array.from({ length: 15_000 }, (_, i) => [`memories/T${i}.md`, `note ${i}`]))
    const r = timed(() => registry.adapt('memory-standard', { files: { 'MEMORY.md': index, ...notes } }))
    assert.equal(r.entries.length, 15_000)
    assert.equal(r.entries[14_999].text, 'note 14999')
    assert.deepEqual(r.warnings, [])
  })

  it('memory-standard stays linear on 100,000 tags, runs of newlines and lines a line break ends (deduplication and end-anchored regexes)', () => {
    const files = {
      'MEMORY.md': `> ${'a:'.repeat(150_000)}\rx\n## t\n- **tags:** ${Array.from({ length: 100_000 }, (_, i) => `t${i}`).join(',')}\n- **summary:**${' '.repeat(200_000)}s\u2028`,
      'memories/t.md': `> mm-kind:${' '.repeat(200_000)}k\u2028\n\nbody${'\n'.repeat(200_000)}end`,
    }
    const r = timed(() => registry.adapt('memory-standard', { files }))
    assert.equal(r.entries.length, 1)
    assert.equal(r.entries[0].tags.length, 16)
    assert.match(
      r.entries[0].text,
      /^> mm-kind: +k\u2028\n\nbody\n+end\n\n- \*\*summary:\*\* +s$/,
      'lines a line break ends are no fields: they stay text',
    )
  })

  it('memory-standard export stays linear on 20,000 entries sharing one topic (each tried every number taken so far)', () => {
    const entries = stored(
      Array.from({ length: 20_000 }, () => ({ track: 'agent', scope: 'workspace', text: 'same words for every entry' })),
    )
    const out = timed(() => registry.export('memory-standard', entries, { indexLines: 1e7, indexBytes: 1e9 }))
    assert.equal(Object.keys(out.files).length, 20_001)
    assert.ok(out.files['memories/same-words-for-every-entry-20000.md'])
  })

  it('mem0 stays linear on a 20 KB key over 5,000 values (each value had a pointer string holding the key)', () => {
    const r = timed(() => registry.adapt('mem0', `{"facts": ["a"],\n"${'k'.repeat(20_000)}": [${Array(5_000).fill('0').join(',')}]}`))
    assert.deepEqual(
      r.entries.map((e) => e.text),
      ['a'],
    )
    assert.deepEqual(r.locations, [1])
  })

  it('mem0 stays linear on one memory with 200,000 tags (deduplicated by searching the kept ones)', () => {
    const tags = Array.from({ length: 200_000 }, (_, i) => `t${i}`)
    const r = timed(() => registry.adapt('mem0', JSON.stringify({ facts: [{ memory: 'x', metadata: { tags } }] })))
    assert.deepEqual(r.entries[0].tags, tags.slice(0, 16))
    assert.match(r.warnings[0].message, /^200000 tags; only the first 16 were kept \(dropped: t16, .*, t31 and 199968 more\)$/)
  })

  it('hermes stays linear on a 100 KB section heading over 10,000 bullets (the heading was made a tag again for every bullet)', () => {
    const r = timed(() =>
      registry.adapt('hermes-memory-md', `## ${'word '.repeat(20_000)}\n${Array.from({ length: 10_000 }, (_, i) => `- e${i}`).join('\n')}`),
    )
    assert.equal(r.entries.length, 10_000)
    assert.deepEqual(r.entries[9999].tags, ['word word word word word word wo'])
    assert.deepEqual(
      r.warnings.map((w) => w.line),
      [1],
      'the cut heading is reported once, at its line',
    )
  })
})
