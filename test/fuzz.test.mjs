// Hostile-input fuzz from JS: a seeded generator of values of every JS type
// (numbers incl. NaN/-0/±Infinity, BigInt, Symbol, functions, lone surrogates, NUL, strings up
// to 2 MB, deep nesting, `__proto__`/`constructor` keys, throwing getters, Proxies, revoked
// Proxies, sparse arrays, exotic objects) thrown at EVERY public entry point of index.mjs —
// the MemoryProvider constructor and methods (also on a closed provider) and the module
// functions. Every call must return/resolve, or throw/reject an Error whose `.code` is a
// protocol code — or the caller's own exception (a getter or Proxy trap of ours that threw, a
// revoked Proxy the engine refused to touch). The process must not crash or hang, and the
// store must stay consistent. MEMENTO_FUZZ_CALLS sets the budget (default 6000);
// MEMENTO_TEST_SEED reproduces a run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { isUtf16Clean, NATIVE_BUILT, NATIVE_SKIP, rng, testSeed, tmpDir, violations } from './support/faults/common.mjs'

const CALLS = Number(process.env.MEMENTO_FUZZ_CALLS ?? 6000)
const SEED = testSeed()
const skip = NATIVE_SKIP
const mod = NATIVE_BUILT ? await import('../index.mjs') : {}

/** Exceptions our own hostile values throw: they may propagate unchanged. */
class CallerError extends Error {}

function generator(r, tmp) {
  const WORDS = [
    'user',
    'agent',
    'workspace',
    'user-global',
    'batch',
    'pending',
    'approved',
    'dismissed',
    'allowed-once',
    'tea',
    'pnpm',
    '漢字',
    '😀',
    'Ünï',
    ' ',
    '',
    'x',
  ]
  const KEYS = [
    'track',
    'scope',
    'text',
    'match',
    'matches',
    'tags',
    'source',
    'workspaceKey',
    'agentKey',
    'limit',
    'sessionId',
    'kind',
    'countRecall',
    'agent',
    'session',
    'id',
    'header',
    'cwd',
    'agentPreset',
    'signal',
    'callId',
    'gate',
    'dbPath',
    'budgets',
    'userGlobal',
    'writePolicy',
    'defaultQueryLimit',
    'sourceLabel',
    'auditRetentionDays',
    'auditVia',
    'constructor',
    'toString',
    'valueOf',
    'then',
    'length',
    'prototype',
  ]
  const str = () => {
    switch (r.int(12)) {
      case 0:
        return '\ud800' + r.pick(WORDS)
      case 1:
        return r.pick(WORDS) + '\udc00'
      case 2:
        return `nul\0${r.pick(WORDS)}`
      case 3:
        return r.chance(0.05) ? 'm'.repeat(r.range(1 << 20, 2 << 20)) : 'long '.repeat(r.range(100, 3000))
      case 4:
        return String.fromCharCode(...Array.from({ length: r.range(1, 12) }, () => r.int(0x10000)))
      case 5:
        return `${r.pick(WORDS)} ${r.pick(WORDS)} [z${r.int(50)}@g]`
      default:
        return r.pick(WORDS)
    }
  }
  const num = () =>
    r.pick([0, -0, NaN, Infinity, -Infinity, 1, -1, 1.5, 2 ** 53 + 2, -(2 ** 63), 1e308, 5e-324, r.int(1e6), r.range(-5, 200)])
  const throwingGetter = () => {
    const o = { track: 'user', scope: 'workspace' }
    Object.defineProperty(o, r.pick(['text', 'match', 'tags', 'track', 'agent', 'gate', 'limit']), {
      enumerable: true,
      get: () => {
        throw new CallerError('getter')
      },
    })
    return o
  }
  const trapProxy = () =>
    new Proxy(r.chance(0.5) ? {} : [], {
      get: (t, k) =>
        r.chance(0.5)
          ? Reflect.get(t, k)
          : (() => {
              throw new CallerError('trap get')
            })(),
      ownKeys: () => {
        throw new CallerError('trap ownKeys')
      },
      has: () => {
        throw new CallerError('trap has')
      },
      getOwnPropertyDescriptor: () => {
        throw new CallerError('trap gOPD')
      },
    })
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable(r.chance(0.5) ? {} : () => 1, {})
    revoke()
    return proxy
  }
  const exotic = () =>
    r.pick([
      () => new Date(),
      () => /re/g,
      () => new Map([['track', 'user']]),
      () => new Set(['user']),
      () => new Uint8Array(8),
      () => new ArrayBuffer(4),
      () => Object.create(null),
      () => Object.freeze({ track: 'user', scope: 'workspace', text: 'frozen' }),
      () => ({ [Symbol('k')]: 1, track: 'user' }),
      () => JSON.parse('{"__proto__": {"track": "user", "scope": "workspace", "text": "polluted"}}'),
      () => ({ constructor: { prototype: { track: 'user' } }, scope: 'workspace', text: 'ctor' }),
      () =>
        new (class Fancy {
          track = 'user'
          scope = 'workspace'
          text = 'class instance'
        })(),
      () => new String('user'),
      () => new Number(1),
      () => new Error('an error as input'),
      () => Promise.resolve('allowed-once'),
      () => new AbortController().signal,
      () => {
        const a = []
        a[r.range(10, 5000)] = 'sparse'
        return a
      },
      () => ({ length: 3, 0: 'a', 1: 'b', 2: 'c' }),
      () => {
        const o = { track: 'user', scope: 'workspace', text: 'cyclic' }
        o.self = o
        return o
      },
      () => {
        let o = 'leaf'
        for (let i = r.range(60, 200); i > 0; i--) o = r.chance(0.5) ? [o] : { text: o }
        return o
      },
    ])()
  const value = (depth = 0) => {
    const k = r.int(depth > 3 ? 9 : 14)
    switch (k) {
      case 0:
        return undefined
      case 1:
        return null
      case 2:
        return r.chance(0.5)
      case 3:
        return num()
      case 4:
        return BigInt(r.int(100)) - 50n
      case 5:
        return Symbol(r.pick(WORDS))
      case 6:
        return r.pick([() => 1, async () => 'allowed-once', function named() {}, class K {}, Math.max])
      case 7:
      case 8:
        return str()
      case 9:
        return throwingGetter()
      case 10:
        return r.chance(0.7) ? trapProxy() : revoked()
      case 11:
        return exotic()
      case 12:
        return Array.from({ length: r.int(5) }, () => value(depth + 1))
      default: {
        const o = {}
        for (let i = r.int(6); i > 0; i--) o[r.pick(KEYS)] = value(depth + 1)
        return o
      }
    }
  }
  // Near-valid inputs: a valid shape with one or two fields replaced by hostile values.
  const validInput = () => ({
    track: r.pick(['user', 'agent']),
    scope: r.pick(['user-global', 'workspace']),
    text: `fuzz ${r.pick(WORDS)} [z${r.int(50)}@g]`,
  })
  const mutate = (base) => {
    const o = { ...base }
    for (let i = r.range(1, 2); i > 0; i--) o[r.pick([...Object.keys(base), ...KEYS])] = value(1)
    if (r.chance(0.1)) {
      Object.defineProperty(o, 'text', {
        enumerable: true,
        get: () => {
          throw new CallerError('text getter')
        },
      })
    }
    return o
  }
  const W = { agent: { session: { id: 'fuzz', header: { cwd: '/srv/fuzz/ws', agentPreset: 'coder' } } } }
  const input = (base) => (r.chance(0.15) ? value() : r.chance(0.2) ? base : mutate(base))
  const write = () => (r.chance(0.75) ? W : r.chance(0.5) ? value() : { agent: { session: { id: value(2), header: value(2) } } })
  const dbPath = () => {
    const v = r.chance(0.5) ? path.join(tmp, `ctor-${r.int(20)}.db`) : value(1)
    // Keep stores inside the temp dir: relative paths resolve under $DSH_HOME (= tmp);
    // absolute or parent-escaping strings are redirected.
    return typeof v === 'string' && (v.startsWith('/') || v.includes('..')) && !v.startsWith(tmp) ? path.join(tmp, 'redirected.db') : v
  }
  const options = () => {
    if (r.chance(0.1)) return value()
    const o = { dbPath: dbPath(), gate: r.chance(0.8) ? async () => 'allowed-once' : value(1) }
    for (const key of ['budgets', 'writePolicy', 'defaultQueryLimit', 'sourceLabel', 'auditRetentionDays', 'auditVia'])
      if (r.chance(0.25)) o[key] = value(1)
    if (r.chance(0.2)) o.budgets = { user: { userGlobal: value(2), workspace: num() }, agent: value(1) }
    return o
  }
  return { value, input, write, validInput, options, str }
}

function classify(e) {
  if (e instanceof CallerError) return 'caller'
  if (e instanceof TypeError && /revoked/.test(e.message)) return 'caller'
  if (e instanceof Error && mod.ERROR_CODES.includes(e.code) && typeof e.details === 'object' && e.details !== null) return 'coded'
  return null
}

const describeValue = (e) => {
  try {
    return `${e?.constructor?.name ?? typeof e} code=${String(e?.code)} ${String(e?.message ?? e).slice(0, 160)}`
  } catch {
    return typeof e
  }
}

test(`fuzz every public entry point with hostile values (${CALLS} calls)`, { skip, timeout: 120_000 }, async (t) => {
  const tmp = tmpDir('memento-fuzz-')
  const savedHome = process.env.DSH_HOME
  process.env.DSH_HOME = tmp
  t.after(() => {
    if (savedHome === undefined) delete process.env.DSH_HOME
    else process.env.DSH_HOME = savedHome
    fs.rmSync(tmp, { recursive: true, force: true })
  })
  const r = rng(SEED)
  const g = generator(r, tmp)
  const { MemoryProvider } = mod
  const dbPath = path.join(tmp, 'main.db')
  const main = new MemoryProvider({ dbPath, gate: async () => 'allowed-once' })
  const closed = new MemoryProvider({ dbPath: path.join(tmp, 'closed.db'), gate: async () => 'allowed-once' })
  closed.close()
  const opened = []
  const bad = new Map()
  const stats = { calls: 0, ok: 0, coded: 0, caller: 0, syncThrowFromAsync: 0 }
  const started = Date.now()
  // Seed a few entries so replace/remove/consolidate reach their deeper paths.
  for (let i = 0; i < 30; i++)
    await main
      .add({ track: r.pick(['user', 'agent']), scope: 'user-global', text: `seed entry [z${i}@g]` }, { agent: { session: { id: 'fuzz' } } })
      .catch(() => {})

  const methods = {
    add: (p) => p.add(g.input(g.validInput()), g.write()),
    replace: (p) => p.replace(g.input({ ...g.validInput(), match: `[z${r.int(50)}@g]` }), g.write()),
    remove: (p) => p.remove(g.input({ track: 'user', scope: 'user-global', match: `[z${r.int(50)}@g]` }), g.write()),
    consolidate: (p) => p.consolidate(g.input({ ...g.validInput(), matches: [`[z${r.int(50)}@g]`, `[z${r.int(50)}@g]`] }), g.write()),
    seed: (p) => p.seed(r.chance(0.3) ? g.value() : Array.from({ length: r.range(1, 4) }, () => g.input(g.validInput())), g.write()),
    query: (p) =>
      p.query(
        g.input({ text: 'fuzz', limit: r.int(30) }),
        g.input({ sessionId: 'fuzz', workspaceKey: '/srv/fuzz/ws', agentKey: 'coder', countRecall: r.chance(0.5) }),
      ),
    budgets: (p) => p.budgets(r.chance(0.5) ? g.value() : { workspaceKey: g.value(1) }),
    listEntries: (p) => p.listEntries(g.value()),
    auditList: (p) => p.auditList(g.value()),
    proposalAdd: (p) => p.proposalAdd(g.input({ kind: 'fuzz', ...g.validInput(), sessionId: `fz${r.int(20)}` })),
    proposalList: (p) => p.proposalList(r.chance(0.5) ? r.pick(['pending', 'approved', 'dismissed']) : g.value(), g.value()),
    proposalDecide: (p) => {
      const pending = p.proposalList('pending', 5)
      const id = pending.length && r.chance(0.6) ? r.pick(pending).id : g.value()
      return p.proposalDecide(id, r.chance(0.5) ? r.pick(['approved', 'dismissed']) : g.value(), g.write())
    },
    path: (p) => p.path,
    constructor: () => {
      const p = new MemoryProvider(g.options())
      opened.push(p)
      return p.listEntries()
    },
    resolveDbPath: () => mod.resolveDbPath(g.value()),
    workspaceKeyOf: () => mod.workspaceKeyOf(g.value()),
    agentKeyOf: () => mod.agentKeyOf(g.value()),
    isMemoryError: () => mod.isMemoryError(g.value()),
  }
  const names = Object.keys(methods)
  const record = (name, outcome, e) => {
    const kind = classify(e)
    if (kind) stats[kind]++
    else {
      const key = `${name}: ${outcome} ${describeValue(e)}`
        .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
        .replace(/\/tmp\/[^ ]*/g, '<tmp>')
        .replace(/`[^`]*`/g, '`…`')
        .replace(/\n[^]*$/, '')
      bad.set(key, (bad.get(key) ?? 0) + 1)
    }
  }
  for (let i = 0; i < CALLS; i++) {
    const name = names[i % names.length]
    const target = r.chance(0.05) ? closed : main
    stats.calls++
    let result
    try {
      result = methods[name](target)
    } catch (e) {
      if (['add', 'replace', 'remove', 'consolidate', 'seed', 'proposalDecide'].includes(name) && classify(e) === 'coded')
        stats.syncThrowFromAsync++
      record(name, 'threw', e)
      continue
    }
    if (result && typeof result.then === 'function') {
      let timer
      const hang = new Promise((resolve) => (timer = setTimeout(() => resolve('HANG'), 5000)))
      try {
        const v = await Promise.race([result, hang])
        if (v === 'HANG') record(name, 'hung', new Error('did not settle within 5 s'))
        else stats.ok++
      } catch (e) {
        record(name, 'rejected', e)
      } finally {
        clearTimeout(timer)
      }
    } else stats.ok++
  }
  for (const p of opened) p.close()
  const elapsed = Date.now() - started

  // The store is consistent and holds only well-formed entries.
  assert.deepEqual(violations(main), [], 'store invariants after the fuzz')
  for (const e of main.listEntries()) {
    assert.ok(isUtf16Clean(e.text) && e.text.length > 0, `entry text is clean Unicode: ${JSON.stringify(e.text.slice(0, 40))}`)
    assert.ok(['user', 'agent'].includes(e.track) && ['user-global', 'workspace'].includes(e.scope))
    assert.ok(Array.isArray(e.tags) && e.tags.every((x) => typeof x === 'string' && isUtf16Clean(x)))
  }
  const entries = main.listEntries()
  main.close()
  const again = new MemoryProvider({ dbPath, gate: async () => 'rejected' })
  assert.deepEqual(again.listEntries(), entries, 'the same after reopening')
  assert.deepEqual(violations(again), [])
  again.close()

  const summary = `fuzz executions: ${stats.calls} in ${elapsed} ms (seed ${SEED}): ${stats.ok} returned, ${stats.coded} coded errors, ${stats.caller} caller exceptions, ${[...bad.values()].reduce((a, b) => a + b, 0)} non-conforming; entries landed ${entries.length}`
  t.diagnostic(summary)
  assert.deepEqual(
    [...bad.entries()].map(([k, n]) => `${k} (×${n})`),
    [],
    'every outcome is a result, a protocol error or the caller’s own exception',
  )
})

test('a sparse array with a huge length is refused quickly, not walked element by element', { skip, timeout: 60_000 }, async () => {
  // Run in a child with a deadline: a provider that walks 2^32-1 holes blocks its event loop.
  const dir = tmpDir('memento-sparse-')
  const script = path.join(dir, 'sparse.mjs')
  fs.writeFileSync(
    script,
    `import { MemoryProvider } from ${JSON.stringify(new URL('../index.mjs', import.meta.url).href)}
const p = new MemoryProvider({ dbPath: ${JSON.stringify(path.join(dir, 'm.db'))}, gate: async () => 'allowed-once' })
const w = { agent: { session: { id: 's' } } }
const huge = []
huge.length = 2 ** 32 - 1
const out = {}
for (const [name, call] of Object.entries({
  tags: () => p.add({ track: 'user', scope: 'user-global', text: 'x', tags: huge }, w),
  seed: () => p.seed(huge, w),
  matches: () => p.consolidate({ track: 'user', scope: 'user-global', text: 'x', matches: huge }, w),
  query: () => p.query({ text: huge }),
})) {
  const t0 = Date.now()
  try { await call(); out[name] = 'accepted' } catch (e) { out[name] = e.code ?? String(e) }
  out[name + 'Ms'] = Date.now() - t0
}
process.send(out)
`,
  )
  try {
    const child = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let report = null
    child.on('message', (m) => (report = m))
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    // 'close', not 'exit': IPC messages can still be in flight at 'exit' (they are, on Windows).
    const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])))
    clearTimeout(timer)
    assert.ok(
      report,
      `the provider answered within 10 s (child ended with ${signal ?? code} without reporting: it was still walking the array)`,
    )
    for (const k of ['tags', 'seed', 'matches', 'query']) {
      assert.equal(report[k], 'INVALID_INPUT', `${k}: ${report[k]}`)
      assert.ok(report[`${k}Ms`] < 1000, `${k} answered in ${report[`${k}Ms`]} ms`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
