// Validates the machine-readable protocol schema (schemas/dsh-memory-protocol-v1.schema.json):
//   1. the schema itself (draft 2020-12, compiles in Ajv strict mode, is a $defs catalogue);
//   2. hand-written fixtures shaped as index.d.ts says (positive) and mutations of them that the
//      protocol forbids (negative: a schema that accepts everything fails here);
//   3. REAL output of the native provider (entries, write results, query results, budgets, audit
//      rows, proposals, every error code it can raise, and an export envelope) against the schema.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { workspaceKeyOf } from './support/keys.mjs'
import { ENTRY_KEYS } from '../conformance/lib.mjs'

const SCHEMA_ID = 'https://dsh-memento.dev/schemas/dsh-memory-protocol-v1.schema.json'
const schema = JSON.parse(readFileSync(new URL('../schemas/dsh-memory-protocol-v1.schema.json', import.meta.url), 'utf8'))
const EXT_ID = 'https://dsh-memento.dev/schemas/dsh-memento-extensions-v1.schema.json'
const extensions = JSON.parse(readFileSync(new URL('../schemas/dsh-memento-extensions-v1.schema.json', import.meta.url), 'utf8'))
const fixtures = JSON.parse(readFileSync(new URL('./fixtures/schema/valid.json', import.meta.url), 'utf8'))

const REQUIRED_DEFS = [
  'track',
  'scope',
  'tag',
  'tags',
  'entry',
  'entryInput',
  'exportEnvelope',
  'auditRow',
  'budgetRow',
  'usage',
  'proposal',
  'error',
  'queryResult',
]
const ERROR_CODES = [
  'INVALID_INPUT',
  'WRITE_REQUIRES_AGENT',
  'BUDGET_EXCEEDED',
  'ENTRY_NOT_FOUND',
  'AMBIGUOUS_MATCH',
  'WRITE_DENIED',
  'PROPOSAL_NOT_FOUND',
  'STORE_CORRUPT',
  'STORE_UNSUPPORTED_VERSION',
  'ADAPTER_NOT_FOUND',
  'ADAPTER_PAYLOAD',
]
const AUDIT_KEYS = ['seq', 'ts', 'action', 'track', 'scope', 'entryId', 'text', 'outcome', 'source', 'sessionId']
const PROPOSAL_KEYS = [
  'id',
  'kind',
  'track',
  'scope',
  'workspaceKey',
  'agentKey',
  'text',
  'source',
  'sessionId',
  'status',
  'createdAt',
  'decidedAt',
]
const BUDGET_ORDER = [
  ['user', 'user-global'],
  ['user', 'workspace'],
  ['agent', 'user-global'],
  ['agent', 'workspace'],
]

// ---------------------------------------------------------------------------------------------
// Ajv setup. Strict mode, all errors; `unicode: false` makes minLength/maxLength count UTF-16
// code units, which is the protocol's length unit (JS string length). That option is deprecated
// in Ajv 8 and logs a warning, which is the only warning tolerated.
const ajvWarnings = []
const ajv = new Ajv2020({
  strict: true,
  allErrors: true,
  unicode: false,
  logger: {
    log() {},
    warn(...args) {
      const msg = args.map(String).join(' ')
      if (!/minLength"\/"maxLength" account for unicode/.test(msg)) ajvWarnings.push(msg)
    },
    error(...args) {
      ajvWarnings.push(args.map(String).join(' '))
    },
  },
})
addFormats(ajv)
ajv.addSchema(schema)
ajv.addSchema(extensions)

const validators = new Map()
function validatorFor(def) {
  if (!validators.has(def)) {
    assert.ok(schema.$defs?.[def], `schema has no $defs/${def}`)
    validators.set(def, ajv.compile({ $ref: `${SCHEMA_ID}#/$defs/${def}` }))
  }
  return validators.get(def)
}
function errorsOf(def, value) {
  const validate = validatorFor(def)
  return validate(value) ? null : ajv.errorsText(validate.errors, { dataVar: def })
}
function assertValid(def, value, label = def) {
  const errs = errorsOf(def, value)
  assert.equal(errs, null, `${label} should match #/$defs/${def}: ${errs}\nvalue: ${safeJson(value)}`)
}
/** Our own error details (additive keys) checked against the extension schema's definition. */
function assertExtValid(def, value, label = def) {
  const validate = ajv.getSchema(`${EXT_ID}#/$defs/${def}`)
  assert.ok(
    validate(value),
    `${label} should match extensions #/$defs/${def}: ${ajv.errorsText(validate.errors)}\nvalue: ${safeJson(value)}`,
  )
}
function assertInvalid(def, value, label) {
  assert.notEqual(errorsOf(def, value), null, `${label}: #/$defs/${def} must reject ${safeJson(value)}`)
}
function safeJson(v) {
  try {
    return JSON.stringify(v)
  } catch {
    return String(v)
  }
}
/** Provider output must be JSON-safe: no undefined fields, no BigInt, plain objects/arrays. */
function assertJsonSafe(value, label) {
  let round
  assert.doesNotThrow(() => {
    round = JSON.parse(JSON.stringify(value))
  }, `${label} is not JSON-serializable`)
  assert.deepStrictEqual(round, value, `${label} does not survive a JSON round trip (undefined field or non-plain value?)`)
}
const clone = (v) => structuredClone(v)
/** Public form of a protocol error, as the schema defines it. */
const publicError = (e) => ({ code: e?.code, message: e?.message, details: e?.details })

// ---------------------------------------------------------------------------------------------
describe('schema document', () => {
  test('is draft 2020-12 with the published $id, and a $defs-only catalogue at the root', () => {
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
    assert.equal(schema.$id, SCHEMA_ID)
    assert.equal(typeof schema.description, 'string')
    assert.ok(schema.description.length > 0)
    for (const k of ['type', 'oneOf', 'anyOf', 'allOf', '$ref', 'properties', 'required']) {
      assert.equal(k in schema, false, `the root must not constrain values (found "${k}")`)
    }
    // The catalogue root accepts anything: validation goes through $ref to #/$defs/<name>.
    assert.equal(ajv.getSchema(SCHEMA_ID)(42), true)
  })

  test('has every required $def and each compiles in strict mode without warnings', () => {
    for (const def of REQUIRED_DEFS) {
      assert.ok(schema.$defs[def], `missing $defs/${def}`)
    }
    for (const def of Object.keys(schema.$defs)) {
      assert.doesNotThrow(() => validatorFor(def), `$defs/${def} does not compile`)
    }
    assert.deepEqual(ajvWarnings, [], 'Ajv strict-mode warnings')
  })

  test('the normative schema carries no dsh-memento extension: those live in dsh-memento-extensions-v1', () => {
    const env = schema.$defs.exportEnvelope
    assert.equal(env.properties.entries.maxItems, 1000, 'one envelope holds at most 1000 entries (§8)')
    assert.equal('part' in env.properties, false, 'no part field in v1 envelopes')
    assert.doesNotMatch(schema.description, /part\./)
    assert.deepEqual(Object.keys(schema.$defs.entryNotFoundDetails.properties), ['track', 'scope', 'match'])
    assert.deepEqual(Object.keys(schema.$defs.storeErrorDetails.properties), ['path'])
    assert.equal(extensions.$id, EXT_ID)
    for (const def of Object.keys(extensions.$defs)) {
      assert.doesNotThrow(() => ajv.getSchema(`${EXT_ID}#/$defs/${def}`), `extensions $defs/${def} does not compile`)
    }
    assert.deepEqual(ajvWarnings, [], 'Ajv strict-mode warnings')
    // an extended error is still a valid normative error (the extensions are additive)
    const changed = {
      code: 'ENTRY_NOT_FOUND',
      message: 'x',
      details: {
        track: 'user',
        scope: 'workspace',
        match: 'tea',
        reason: 'changed',
        approvedVersion: 1,
        current: { id: 'i', version: 2, text: 't' },
      },
    }
    assertValid('error', changed, 'changed target')
    assertExtValid('error', changed, 'changed target')
    assert.equal(
      ajv.getSchema(`${EXT_ID}#/$defs/error`)({ ...changed, details: { ...changed.details, current: undefined } }),
      false,
      'reason changed needs current',
    )
    assert.equal(
      ajv.getSchema(`${EXT_ID}#/$defs/error`)({ code: 'STORE_CORRUPT', message: 'x', details: { path: '/p' } }),
      false,
      'our STORE_CORRUPT always says why',
    )
    const flagged = {
      code: 'INVALID_INPUT',
      message: 'x',
      details: {
        reason: 'secret',
        flagged: [{ index: 1, kind: 'a private key', field: 'text', excerpt: '<redacted>', where: 'CLAUDE.md line 6' }],
      },
    }
    assertValid('error', flagged, 'an import refused for credentials')
    assertExtValid('error', flagged, 'an import refused for credentials')
    const extError = ajv.getSchema(`${EXT_ID}#/$defs/error`)
    assert.equal(extError({ ...flagged, details: { flagged: flagged.details.flagged } }), false, 'flagged entries come with reason secret')
    assert.equal(
      extError({ ...flagged, details: { reason: 'secret', flagged: [{ ...flagged.details.flagged[0], field: 'body' }] } }),
      false,
      'field is text, source or tags',
    )
    const over = {
      code: 'BUDGET_EXCEEDED',
      message: 'x',
      details: {
        track: 'agent',
        scope: 'workspace',
        used: 0,
        limit: 4000,
        needed: 21000,
        sections: [{ section: 'Testing', chars: 9000, entries: 20, fromLine: 3, toLine: 90 }],
      },
    }
    assertExtValid('error', over, 'an import over budget')
    assert.equal(
      extError({ ...over, details: { ...over.details, sections: [{ section: 'Testing', entries: 20 }] } }),
      false,
      'a section has its size',
    )
  })

  test('error code enum is exactly the protocol code list (and matches index.d.ts ErrorCode)', () => {
    const codes = schema.$defs.errorCode?.enum ?? schema.$defs.error.properties.code.enum
    assert.deepEqual([...codes].sort(), [...ERROR_CODES].sort())
    const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
    const block = dts.match(/export type ErrorCode =([\s\S]*?)\n\n/)
    assert.ok(block, 'index.d.ts declares ErrorCode')
    const dtsCodes = [...block[1].matchAll(/'([A-Z_]+)'/g)].map((m) => m[1])
    assert.deepEqual([...dtsCodes].sort(), [...ERROR_CODES].sort())
  })

  test('entry/auditRow/proposal/budgetRow properties match the index.d.ts field lists', () => {
    assert.deepEqual(Object.keys(schema.$defs.entry.properties), ENTRY_KEYS)
    assert.deepEqual([...schema.$defs.entry.required].sort(), [...ENTRY_KEYS].sort())
    assert.deepEqual(Object.keys(schema.$defs.auditRow.properties), AUDIT_KEYS)
    assert.deepEqual([...schema.$defs.auditRow.required].sort(), [...AUDIT_KEYS].sort())
    assert.deepEqual(Object.keys(schema.$defs.proposal.properties), PROPOSAL_KEYS)
    assert.deepEqual([...schema.$defs.proposal.required].sort(), [...PROPOSAL_KEYS].sort())
    assert.deepEqual(Object.keys(schema.$defs.budgetRow.properties), ['track', 'scope', 'used', 'limit'])
    assert.deepEqual(Object.keys(schema.$defs.entryInput.properties).sort(), [
      'agentKey',
      'scope',
      'source',
      'tags',
      'text',
      'track',
      'workspaceKey',
    ])
    assert.deepEqual(schema.$defs.entryInput.required, ['track', 'scope', 'text'])
  })
})

// ---------------------------------------------------------------------------------------------
describe('hand-written fixtures (shaped as index.d.ts)', () => {
  test('every fixture validates against its $def', () => {
    let n = 0
    for (const [def, values] of Object.entries(fixtures)) {
      if (def.startsWith('$')) continue
      for (const [i, v] of values.entries()) {
        assertValid(def, v, `fixtures.${def}[${i}]`)
        n++
      }
    }
    assert.ok(n >= 25, `expected a real fixture set, got ${n}`)
    // One error fixture per protocol code.
    assert.deepEqual(fixtures.error.map((e) => e.code).sort(), [...ERROR_CODES].sort())
  })

  test('boundary values are accepted', () => {
    const e = clone(fixtures.entry[0])
    e.tags = Array.from({ length: 16 }, (_, i) => `t${i}`.padEnd(32, 'x'))
    assertValid('entry', e, '16 tags of 32 chars')
    e.tags = ['😀'.repeat(16)] // 32 UTF-16 units
    assertValid('entry', e, 'a tag of 16 astral chars (32 UTF-16 units)')
    e.tags = ['a b', 'ü', '标签']
    assertValid('entry', e, 'inner spaces / non-ASCII tags')
    const bud = clone(fixtures.error[2])
    bud.details.extra = 'additive detail keys are allowed'
    assertValid('error', bud, 'error with an additive details key')
    const big = clone(fixtures.exportEnvelope[1])
    big.entries = Array.from({ length: 1000 }, () => ({ ...fixtures.entry[0], id: randomUUID() }))
    assertValid('exportEnvelope', big, 'envelope with 1000 entries (the import cap)')
    big.entries.push({ ...fixtures.entry[0], id: randomUUID() })
    assertInvalid('exportEnvelope', big, 'envelope with 1001 entries (maxItems 1000, §8)')
  })

  test('entry: rejects what the protocol forbids', () => {
    const bad = (label, mutate) => {
      const e = clone(fixtures.entry[0])
      mutate(e)
      assertInvalid('entry', e, label)
    }
    bad('a 33-char tag', (e) => {
      e.tags = ['x'.repeat(33)]
    })
    bad('a tag of 17 astral chars (34 UTF-16 units)', (e) => {
      e.tags = ['😀'.repeat(17)]
    })
    bad('missing sessionId', (e) => {
      delete e.sessionId
    })
    bad('sessionId undefined', (e) => {
      e.sessionId = undefined
    })
    bad('17 tags', (e) => {
      e.tags = Array.from({ length: 17 }, (_, i) => `t${i}`)
    })
    bad('duplicate tags', (e) => {
      e.tags = ['a', 'a']
    })
    bad('empty tag', (e) => {
      e.tags = ['']
    })
    bad('tag with a control char', (e) => {
      e.tags = ['a\u0007b']
    })
    bad('tag with DEL', (e) => {
      e.tags = ['a\u007fb']
    })
    bad('tag with a newline', (e) => {
      e.tags = ['a\nb']
    })
    bad('non-string tag', (e) => {
      e.tags = [1]
    })
    bad('tags not an array', (e) => {
      e.tags = 'style'
    })
    bad('non-v4 id', (e) => {
      e.id = '0b6f2c1e-3d4a-1f5b-9c6d-7e8f9a0b1c2d'
    })
    bad('bad variant id', (e) => {
      e.id = '0b6f2c1e-3d4a-4f5b-7c6d-7e8f9a0b1c2d'
    })
    bad('non-uuid id', (e) => {
      e.id = 'entry-1'
    })
    bad('version 0', (e) => {
      e.version = 0
    })
    bad('fractional version', (e) => {
      e.version = 1.5
    })
    bad('version as string', (e) => {
      e.version = '1'
    })
    bad('negative recallCount', (e) => {
      e.recallCount = -1
    })
    bad('lastRecalled as ISO string', (e) => {
      e.lastRecalled = '2026-11-29T00:00:00Z'
    })
    bad('missing lastRecalled', (e) => {
      delete e.lastRecalled
    })
    bad('empty text', (e) => {
      e.text = ''
    })
    bad('empty source', (e) => {
      e.source = ''
    })
    bad('unknown track', (e) => {
      e.track = 'system'
    })
    bad('unknown scope', (e) => {
      e.scope = 'session'
    })
    bad('workspaceKey null', (e) => {
      e.workspaceKey = null
    })
    bad('extra field', (e) => {
      e.score = 1
    })
    bad('fractional createdAt', (e) => {
      e.createdAt = 1.5
    })
    for (const k of ENTRY_KEYS)
      bad(`missing ${k}`, (e) => {
        delete e[k]
      })
  })

  test('entryInput: required fields and no extras', () => {
    assertInvalid('entryInput', { track: 'user', scope: 'user-global' }, 'missing text')
    assertInvalid('entryInput', { track: 'user', text: 'x' }, 'missing scope')
    assertInvalid('entryInput', { track: 'user', scope: 'user-global', text: '' }, 'empty text')
    assertInvalid('entryInput', { ...fixtures.entryInput[0], id: randomUUID() }, 'extra id')
    assertInvalid('entryInput', { ...fixtures.entryInput[0], tags: ['x'.repeat(33)] }, '33-char tag')
  })

  test('error: each code requires its details keys', () => {
    const required = {
      BUDGET_EXCEEDED: ['track', 'scope', 'used', 'limit', 'needed'],
      ENTRY_NOT_FOUND: ['track', 'scope', 'match'],
      AMBIGUOUS_MATCH: ['track', 'scope', 'match', 'candidates', 'sample'],
      WRITE_DENIED: ['outcome'],
      PROPOSAL_NOT_FOUND: ['id'],
      STORE_CORRUPT: ['path'],
      STORE_UNSUPPORTED_VERSION: ['path'],
      ADAPTER_NOT_FOUND: ['adapterId'],
      ADAPTER_PAYLOAD: ['adapterId'],
    }
    for (const [code, keys] of Object.entries(required)) {
      const base = fixtures.error.find((e) => e.code === code)
      for (const k of keys) {
        const e = clone(base)
        delete e.details[k]
        assertInvalid('error', e, `${code} without details.${k}`)
      }
    }
    const budgetNoNeeded = clone(fixtures.error[2])
    delete budgetNoNeeded.details.needed
    assertInvalid('error', budgetNoNeeded, 'BUDGET_EXCEEDED without needed')
    assertInvalid('error', { code: 'MEMORY_DISABLED', message: 'x', details: {} }, 'MEMORY_DISABLED is not a protocol code')
    assertInvalid('error', { code: 'INVALID_INPUT', message: 'x' }, 'missing details')
    assertInvalid('error', { code: 'INVALID_INPUT', details: {} }, 'missing message')
    assertInvalid('error', { code: 'INVALID_INPUT', message: '', details: {} }, 'empty message')
    assertInvalid('error', { code: 'INVALID_INPUT', message: 'x', details: [] }, 'details as array')
    assertInvalid(
      'error',
      { code: 'BUDGET_EXCEEDED', message: 'x', track: 'user', scope: 'user-global', used: 1, limit: 1, needed: 2 },
      'the flattened {code, message, ...details} form',
    )
    const amb = clone(fixtures.error[4])
    amb.details.candidates = '2'
    assertInvalid('error', amb, 'AMBIGUOUS_MATCH candidates as string')
    const amb1 = clone(fixtures.error[4])
    amb1.details.candidates = 1
    assertInvalid('error', amb1, 'AMBIGUOUS_MATCH with one candidate')
    const bud = clone(fixtures.error[2])
    bud.details.track = 'bogus'
    assertInvalid('error', bud, 'BUDGET_EXCEEDED with an unknown track')
  })

  test('exportEnvelope: envelope shape is enforced', () => {
    const bad = (label, mutate) => {
      const env = clone(fixtures.exportEnvelope[0])
      mutate(env)
      assertInvalid('exportEnvelope', env, label)
    }
    bad('3 budget rows', (env) => {
      env.budgets.pop()
    })
    bad('5 budget rows', (env) => {
      env.budgets.push(clone(env.budgets[0]))
    })
    bad('budget rows out of order', (env) => {
      env.budgets.reverse()
    })
    bad('budget row with limit 0', (env) => {
      env.budgets[0].limit = 0
    })
    bad('plugin other than dsh-memento', (env) => {
      env.plugin = 'mem0'
    })
    bad('schema memory-export-v2', (env) => {
      env.schema = 'memory-export-v2'
    })
    bad('exportedAt not a date-time', (env) => {
      env.exportedAt = 'yesterday'
    })
    bad('exportedAt as epoch ms', (env) => {
      env.exportedAt = 1795900000000
    })
    bad('entry without sessionId (reference export, D4)', (env) => {
      delete env.entries[0].sessionId
    })
    bad('entries not an array', (env) => {
      env.entries = {}
    })
    bad('missing budgets', (env) => {
      delete env.budgets
    })
    bad('a part number (not in v1: multi-part exports are tied by a manifest)', (env) => {
      env.part = { index: 1, count: 1 }
    })
    bad('extra top-level key', (env) => {
      env.audit = []
    })
  })

  test('auditRow, budgetRow, usage, proposal, queryResult reject malformed values', () => {
    const row = fixtures.auditRow[0]
    assertInvalid('auditRow', { ...row, sessionId: undefined }, 'audit row without sessionId')
    assertInvalid('auditRow', { ...row, seq: '1' }, 'audit seq as string')
    assertInvalid('auditRow', { ...row, ts: 1.5 }, 'fractional ts')
    assertInvalid('auditRow', { ...row, action: '' }, 'empty action')
    assertInvalid('auditRow', { ...row, outcome: 1 }, 'numeric outcome')
    assertInvalid('auditRow', { ...row, extra: null }, 'extra key')

    const b = fixtures.budgetRow[0]
    assertInvalid('budgetRow', { ...b, limit: 0 }, 'limit 0')
    assertInvalid('budgetRow', { ...b, used: -1 }, 'used -1')
    assertInvalid('budgetRow', { ...b, used: 1.5 }, 'fractional used')
    assertInvalid('budgetRow', { ...b, track: 'batch' }, 'batch track')
    assertInvalid('usage', { track: 'user', scope: 'user-global', used: 0 }, 'usage without limit')

    const p = fixtures.proposal[0]
    assertInvalid('proposal', { ...p, decidedAt: 1795900000000 }, 'pending proposal with decidedAt')
    assertInvalid('proposal', { ...fixtures.proposal[1], decidedAt: null }, 'approved proposal without decidedAt')
    assertInvalid('proposal', { ...p, status: 'rejected' }, 'unknown status')
    assertInvalid('proposal', { ...p, sessionId: undefined }, 'proposal without sessionId')
    assertInvalid('proposal', { ...p, text: '' }, 'empty proposal text')

    assertInvalid('queryResult', { entries: [], total: 0 }, 'missing truncated')
    assertInvalid('queryResult', { entries: [], total: -1, truncated: false }, 'negative total')
    assertInvalid(
      'queryResult',
      {
        entries: Array.from({ length: 1001 }, () => ({ ...fixtures.entry[0], id: randomUUID() })),
        total: 1001,
        truncated: false,
      },
      'page over the 1000 hard cap',
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Live provider. The whole scenario runs once in `before`; every step records its value or error
// so a failure in one step is reported by the tests that need it, not by all of them.
describe('real provider output', () => {
  const W = { agent: { session: { id: 's1', header: { cwd: '/tmp/ws', agentPreset: 'a' } } } }
  const allow = async () => 'allowed-once'
  const dirs = []
  const steps = new Map()
  let loadError = null
  let mod = null

  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'memento-schema-'))
    dirs.push(d)
    return d
  }
  async function step(name, fn) {
    try {
      steps.set(name, { value: await fn() })
    } catch (error) {
      steps.set(name, { error })
    }
  }
  /** The value of a step that must have succeeded. */
  function got(name) {
    const s = steps.get(name)
    assert.ok(s, `step "${name}" did not run${loadError ? ` (provider failed to load/open: ${loadError.message})` : ''}`)
    if ('error' in s) {
      const e = s.error
      assert.fail(`step "${name}" threw ${e?.code ?? e?.name}: ${e?.message}`)
    }
    return s.value
  }
  /** The error of a step that must have thrown. */
  function thrown(name) {
    const s = steps.get(name)
    assert.ok(s, `step "${name}" did not run${loadError ? ` (provider failed to load/open: ${loadError.message})` : ''}`)
    assert.ok('error' in s, `step "${name}" should have thrown, returned ${safeJson(s.value)}`)
    return s.error
  }

  before(async () => {
    try {
      mod = await import('../index.mjs')
    } catch (e) {
      loadError = e
      return
    }
    const { MemoryProvider } = mod
    let p
    try {
      p = new MemoryProvider({
        dbPath: join(tmp(), 'memory.db'),
        gate: allow,
        budgets: { user: { userGlobal: 200 } },
      })
    } catch (e) {
      loadError = e
      return
    }

    await step('add1', () => p.add({ track: 'user', scope: 'user-global', text: 'prefers tabs over spaces', tags: ['style', 'editor'] }, W))
    await step('add2', () => p.add({ track: 'agent', scope: 'workspace', text: 'repo uses pnpm workspaces', tags: ['build'] }, W))
    await step('add3', () => p.add({ track: 'agent', scope: 'workspace', text: 'repo uses cargo nextest for tests' }, W))
    await step('add4', () =>
      p.add({ track: 'agent', scope: 'user-global', text: 'lesson: always run the linter', source: 'memory-tool' }, W),
    )
    await step('replace', () =>
      p.replace({ track: 'user', scope: 'user-global', match: 'TABS', text: 'prefers tabs (width 4) over spaces', tags: ['style'] }, W),
    )
    await step('err:AMBIGUOUS_MATCH', () => p.remove({ track: 'agent', scope: 'workspace', match: 'repo uses' }, W))
    await step('consolidate', () =>
      p.consolidate(
        {
          track: 'agent',
          scope: 'workspace',
          matches: ['pnpm', 'nextest'],
          text: 'repo uses pnpm workspaces and cargo nextest',
          tags: ['build', 'testing'],
        },
        W,
      ),
    )
    await step('seed', () =>
      p.seed(
        [
          { track: 'user', scope: 'workspace', text: 'works late evenings' },
          { track: 'agent', scope: 'user-global', text: 'deploys go through CI only', tags: ['ops'], source: 'claude' },
        ],
        W,
      ),
    )
    await step('remove', () => p.remove({ track: 'user', scope: 'workspace', match: 'late evenings' }, W))
    await step('err:ENTRY_NOT_FOUND', () => p.remove({ track: 'user', scope: 'workspace', match: 'late evenings' }, W))
    await step('err:INVALID_INPUT', () => p.add({ track: 'bogus', scope: 'user-global', text: 'x' }, W))
    await step('err:INVALID_INPUT:tag33', () => p.add({ track: 'user', scope: 'user-global', text: 'x', tags: ['x'.repeat(33)] }, W))
    await step('err:WRITE_REQUIRES_AGENT', () => p.add({ track: 'user', scope: 'user-global', text: 'x' }, {}))
    await step('err:BUDGET_EXCEEDED', () => p.add({ track: 'user', scope: 'user-global', text: 'y'.repeat(300) }, W))
    await step('health', () => p.health({ staleDays: 1 }))
    await step('preview:similar', () =>
      p.preview('add', { track: 'agent', scope: 'user-global', text: 'Lesson: always run the linter.' }, W),
    )

    await step('queryAll', () => p.query({ limit: 1000 }))
    await step('queryText', () => p.query({ text: 'PNPM' }, { sessionId: 's1' }))
    await step('queryPage', () => p.query({ limit: 1 }))
    await step('budgets', () => p.budgets())
    await step('listAfterQueries', () => p.listEntries())

    const proposal = (sessionId, text) => ({
      kind: 'compaction-summary',
      track: 'agent',
      scope: 'workspace',
      text,
      source: 'compaction',
      sessionId,
      workspaceKey: workspaceKeyOf('/tmp/ws'),
      agentKey: 'a',
    })
    await step('proposalAdd1', () => p.proposalAdd(proposal('s1', 'summary: switched the repo to pnpm')))
    await step('proposalAddDup', () => p.proposalAdd(proposal('s1', 'summary: a second one')))
    await step('proposalAdd2', () => p.proposalAdd(proposal('s2', 'summary: CI runs nextest')))
    await step('proposalListPending', () => p.proposalList('pending'))
    await step('proposalApprove', () => p.proposalDecide(steps.get('proposalAdd1')?.value?.id, 'approved', W))
    await step('proposalDismiss', () => p.proposalDecide(steps.get('proposalAdd2')?.value?.id, 'dismissed', W))
    await step('proposalListAll', () => p.proposalList())
    await step('err:PROPOSAL_NOT_FOUND', () => p.proposalDecide(randomUUID(), 'approved', W))
    await step('err:PROPOSAL_NOT_FOUND:decided', () => p.proposalDecide(steps.get('proposalAdd1')?.value?.id, 'dismissed', W))

    await step('listEntries', () => p.listEntries())
    await step('auditList', () => p.auditList(1000))
    await step('envelope', () => ({
      plugin: 'dsh-memento',
      schema: 'memory-export-v1',
      exportedAt: new Date().toISOString(),
      budgets: p.budgets(),
      entries: p.listEntries(),
    }))
    await step('path', () => p.path)
    await step('close', () => p.close())
    await step('err:STORE_CORRUPT:closed', () => p.listEntries())

    // WRITE_DENIED: a provider whose gate rejects.
    let denied
    await step('deniedOpen', () => {
      denied = new MemoryProvider({ dbPath: join(tmp(), 'memory.db'), gate: async () => 'rejected' })
    })
    if (denied) {
      await step('err:WRITE_DENIED', () => denied.add({ track: 'user', scope: 'user-global', text: 'never written' }, W))
      await step('deniedAudit', () => denied.auditList())
      await step('deniedList', () => denied.listEntries())
      denied.close()
    }

    // STORE_CORRUPT: a garbage file where the store should be (constructor or first read throws).
    const garbage = join(tmp(), 'memory.db')
    writeFileSync(garbage, 'this is not a sqlite database\n'.repeat(200))
    await step('err:STORE_CORRUPT', () => {
      const c = new MemoryProvider({ dbPath: garbage, gate: allow })
      try {
        return c.listEntries()
      } finally {
        c.close()
      }
    })
    await step('garbagePath', () => garbage)
  })

  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  test('the native provider loads and opens a store', () => {
    assert.equal(loadError, null, `loading/opening the provider failed: ${loadError?.message}`)
    assert.equal(typeof mod.MemoryProvider, 'function')
  })

  test('add results: {entry, usage} with complete v1 entries', () => {
    for (const name of ['add1', 'add2', 'add3', 'add4']) {
      const r = got(name)
      assertValid('addResult', r, `${name} result`)
      assertValid('entry', r.entry, `${name}.entry`)
      assertValid('usage', r.usage, `${name}.usage`)
      assertJsonSafe(r, `${name} result`)
      assert.equal(r.entry.version, 1)
      assert.equal(r.entry.sessionId, 's1')
      assert.equal(r.entry.lastRecalled, null)
      assert.equal(r.entry.recallCount, 0)
      assert.ok(r.entry.updatedAt >= r.entry.createdAt, 'updatedAt >= createdAt')
      assert.equal(r.usage.track, r.entry.track)
      assert.equal(r.usage.scope, r.entry.scope)
    }
    // index.d.ts: workspaceKey is always '' for user-global; workspace entries get the writer's cwd key.
    assert.equal(got('add1').entry.workspaceKey, '')
    assert.equal(got('add4').entry.workspaceKey, '')
    assert.equal(got('add2').entry.workspaceKey, workspaceKeyOf('/tmp/ws'))
    assert.equal(got('add2').entry.agentKey, 'a')
    assert.deepEqual(got('add1').entry.tags, ['style', 'editor'])
    assert.equal(got('add1').usage.limit, 200)
    assert.equal(got('add4').entry.source, 'memory-tool')
    assert.equal(got('add1').entry.source, 'dsh-memento')
  })

  test('replace result: {previous, entry, usage}; id stable, version bumped', () => {
    const r = got('replace')
    assertValid('replaceResult', r, 'replace result')
    assertValid('entry', r.previous, 'replace.previous')
    assertValid('entry', r.entry, 'replace.entry')
    assertValid('usage', r.usage, 'replace.usage')
    assertJsonSafe(r, 'replace result')
    assert.equal(r.entry.id, got('add1').entry.id)
    assert.equal(r.entry.version, r.previous.version + 1)
    assert.ok(r.entry.updatedAt >= r.entry.createdAt)
    assert.deepEqual(r.entry.tags, ['style'])
  })

  test('consolidate result: {removed, entry, usage}', () => {
    const r = got('consolidate')
    assertValid('consolidateResult', r, 'consolidate result')
    for (const [i, e] of r.removed.entries()) assertValid('entry', e, `consolidate.removed[${i}]`)
    assertValid('entry', r.entry, 'consolidate.entry')
    assertValid('usage', r.usage, 'consolidate.usage')
    assertJsonSafe(r, 'consolidate result')
    assert.equal(r.removed.length, 2)
    assert.equal(r.entry.version, 1)
    assert.deepEqual(r.entry.tags, ['build', 'testing'])
  })

  test('seed result: {added, entries}', () => {
    const r = got('seed')
    assertValid('seedResult', r, 'seed result')
    for (const [i, e] of r.entries.entries()) assertValid('entry', e, `seed.entries[${i}]`)
    assertJsonSafe(r, 'seed result')
    assert.equal(r.added, 2)
    assert.equal(r.entries.length, 2)
    assert.equal(r.entries[1].source, 'claude')
  })

  test('remove result: {entry, usage}', () => {
    const r = got('remove')
    assertValid('removeResult', r, 'remove result')
    assertValid('entry', r.entry, 'remove.entry')
    assertValid('usage', r.usage, 'remove.usage')
    assertJsonSafe(r, 'remove result')
    assert.equal(r.entry.text, 'works late evenings')
  })

  test('query results and listEntries entries', () => {
    for (const name of ['queryAll', 'queryText', 'queryPage']) {
      const q = got(name)
      assertValid('queryResult', q, name)
      for (const [i, e] of q.entries.entries()) assertValid('entry', e, `${name}.entries[${i}]`)
      assertJsonSafe(q, name)
    }
    assert.ok(got('queryAll').entries.length >= 4)
    assert.equal(got('queryAll').truncated, false)
    assert.equal(got('queryText').total, 1)
    assert.equal(got('queryPage').entries.length, 1)
    assert.equal(got('queryPage').truncated, true)
    for (const name of ['listAfterQueries', 'listEntries']) {
      const list = got(name)
      assert.ok(Array.isArray(list) && list.length >= 4, `${name} is a non-trivial array`)
      for (const [i, e] of list.entries()) {
        assertValid('entry', e, `${name}[${i}]`)
        assert.ok(e.updatedAt >= e.createdAt, `${name}[${i}] updatedAt >= createdAt`)
      }
      assertJsonSafe(list, name)
    }
    // After the queries, recalled entries carry integer lastRecalled (the non-null branch).
    const recalled = got('listAfterQueries').filter((e) => e.lastRecalled !== null)
    assert.ok(recalled.length >= 1, 'queries bump lastRecalled')
    for (const e of recalled) assert.ok(Number.isInteger(e.lastRecalled) && e.recallCount >= 1)
  })

  test('budgets(): exactly 4 budget rows in the fixed order', () => {
    const rows = got('budgets')
    assertValid('budgets', rows, 'budgets()')
    for (const [i, r] of rows.entries()) assertValid('budgetRow', r, `budgets()[${i}]`)
    assertJsonSafe(rows, 'budgets()')
    assert.deepEqual(
      rows.map((r) => [r.track, r.scope]),
      BUDGET_ORDER,
    )
    assert.equal(rows[0].limit, 200)
  })

  test('auditList(): every row is an auditRow; the write actions are all there', () => {
    const rows = got('auditList')
    assert.ok(Array.isArray(rows) && rows.length > 0)
    for (const [i, r] of rows.entries()) assertValid('auditRow', r, `auditList()[${i}] (${r?.action})`)
    assertJsonSafe(rows, 'auditList()')
    const actions = new Set(rows.map((r) => r.action))
    for (const a of ['add', 'replace', 'remove', 'consolidate-remove', 'consolidate-add', 'seed', 'recalled']) {
      assert.ok(actions.has(a), `audit has a "${a}" row (actions: ${[...actions].join(', ')})`)
    }
    const denied = got('deniedAudit')
    for (const [i, r] of denied.entries()) assertValid('auditRow', r, `denied auditList()[${i}]`)
    assert.ok(
      denied.some((r) => r.action === 'add-denied'),
      'a denied write leaves an add-denied row',
    )
    assert.deepEqual(got('deniedList'), [])
  })

  test('proposals: proposalAdd / proposalList / proposalDecide', () => {
    const p1 = got('proposalAdd1')
    const p2 = got('proposalAdd2')
    assertValid('proposal', p1, 'proposalAdd #1')
    assertValid('proposal', p2, 'proposalAdd #2')
    assert.equal(p1.status, 'pending')
    assert.equal(p1.decidedAt, null)
    assert.equal(got('proposalAddDup'), null, 'a second proposal of the same kind for the session is null')
    const pending = got('proposalListPending')
    assert.ok(pending.length >= 2)
    for (const [i, p] of pending.entries()) assertValid('proposal', p, `proposalList('pending')[${i}]`)
    const approved = got('proposalApprove')
    assertValid('proposalDecideResult', approved, 'proposalDecide approved')
    assertValid('proposal', approved.proposal, 'approved.proposal')
    assertValid('entry', approved.entry, 'approved.entry')
    assertValid('usage', approved.usage, 'approved.usage')
    assert.equal(approved.proposal.status, 'approved')
    assert.equal(approved.entry.source, 'proposal')
    const dismissed = got('proposalDismiss')
    assertValid('proposalDecideResult', dismissed, 'proposalDecide dismissed')
    assert.equal(dismissed.proposal.status, 'dismissed')
    assert.equal('entry' in dismissed, false, 'a dismissal adds no entry')
    const all = got('proposalListAll')
    for (const [i, p] of all.entries()) assertValid('proposal', p, `proposalList()[${i}]`)
    assert.deepEqual(new Set(all.map((p) => p.status)), new Set(['approved', 'dismissed']))
    assertJsonSafe({ p1, p2, pending, approved, dismissed, all }, 'proposal outputs')
  })

  test('export envelope built from budgets() + listEntries() is schema-valid', () => {
    const env = got('envelope')
    assertValid('exportEnvelope', env, 'export envelope')
    assertJsonSafe(env, 'export envelope')
    // Dropping sessionId (what the reference export does, D4) must be rejected.
    const d4 = clone(env)
    for (const e of d4.entries) delete e.sessionId
    assertInvalid('exportEnvelope', d4, 'envelope whose entries omit sessionId')
  })

  test('output key order matches index.d.ts ("key order as emitted")', () => {
    for (const e of got('listEntries')) assert.deepEqual(Object.keys(e), ENTRY_KEYS)
    for (const r of got('auditList')) assert.deepEqual(Object.keys(r), AUDIT_KEYS)
    for (const p of got('proposalListAll')) assert.deepEqual(Object.keys(p), PROPOSAL_KEYS)
    for (const r of got('budgets')) assert.deepEqual(Object.keys(r), ['track', 'scope', 'used', 'limit'])
    const q = got('queryAll')
    assert.deepEqual(Object.keys(q), ['entries', 'total', 'truncated'])
  })

  const errorCases = [
    ['err:INVALID_INPUT', 'INVALID_INPUT'],
    ['err:INVALID_INPUT:tag33', 'INVALID_INPUT'],
    ['err:WRITE_REQUIRES_AGENT', 'WRITE_REQUIRES_AGENT'],
    ['err:BUDGET_EXCEEDED', 'BUDGET_EXCEEDED'],
    ['err:ENTRY_NOT_FOUND', 'ENTRY_NOT_FOUND'],
    ['err:AMBIGUOUS_MATCH', 'AMBIGUOUS_MATCH'],
    ['err:WRITE_DENIED', 'WRITE_DENIED'],
    ['err:PROPOSAL_NOT_FOUND', 'PROPOSAL_NOT_FOUND'],
    ['err:PROPOSAL_NOT_FOUND:decided', 'PROPOSAL_NOT_FOUND'],
    ['err:STORE_CORRUPT', 'STORE_CORRUPT'],
    ['err:STORE_CORRUPT:closed', 'STORE_CORRUPT'],
  ]
  for (const [name, code] of errorCases) {
    test(`${code} (${name.slice(4)}): {code, message, details} matches #/$defs/error`, () => {
      const e = thrown(name)
      assert.ok(e instanceof Error, `${name}: a protocol error is an Error`)
      assert.equal(e.code, code, `${name}: expected code ${code}, got ${e.code} (${e.message})`)
      if (mod.isMemoryError) assert.equal(mod.isMemoryError(e), true, 'isMemoryError(e)')
      const pub = publicError(e)
      assertValid('error', pub, `${name} public form`)
      assertExtValid('error', pub, `${name} public form`)
      assertJsonSafe(pub, `${name} public form`)
    })
  }

  test('what dsh-memento returns beyond the protocol matches its extension schema: health, similar, suggestions', () => {
    assertExtValid('health', got('health'), 'health()')
    const similar = got('preview:similar').similar
    assert.equal(similar?.length, 1, 'the stored lesson is named')
    assertExtValid('similar', similar, "a payload's similar")
    const suggestions = thrown('err:BUDGET_EXCEEDED').details.suggestions
    assert.ok(suggestions.length >= 1, 'a full layer says what to remove')
    for (const s of suggestions) assertExtValid('suggestion', s, 'a suggestion')
    assert.equal(ajv.getSchema(`${EXT_ID}#/$defs/suggestion`)({ ...suggestions[0], frees: 0 }), false, 'a suggestion frees something')
  })

  test('error details carry the right values', () => {
    const budget = thrown('err:BUDGET_EXCEEDED').details
    assert.equal(budget.track, 'user')
    assert.equal(budget.scope, 'user-global')
    assert.equal(budget.limit, 200)
    assert.equal(budget.needed, budget.used + 300)
    const amb = thrown('err:AMBIGUOUS_MATCH').details
    assert.equal(amb.candidates, 2)
    assert.equal(amb.sample.length, 2)
    assert.equal(amb.match, 'repo uses')
    assert.deepEqual(thrown('err:ENTRY_NOT_FOUND').details, { track: 'user', scope: 'workspace', match: 'late evenings' })
    assert.equal(thrown('err:WRITE_DENIED').details.outcome, 'rejected')
    assert.equal(thrown('err:STORE_CORRUPT').details.path, got('garbagePath'))
    assert.equal(thrown('err:STORE_CORRUPT:closed').details.path, got('path'))
    for (const name of ['err:INVALID_INPUT', 'err:WRITE_REQUIRES_AGENT']) {
      assert.deepEqual(thrown(name).details, {}, `${name} details`)
    }
  })
})
