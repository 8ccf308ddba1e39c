// Shared helpers for the dsh-memory-protocol/v1 conformance cases (node:assert only, no deps).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'

export { assert }

/** The standard write context of the suite (spec §10). A fresh object per call. */
export function standardWrite() {
  return { agent: { session: { id: 'conformance-session', header: { cwd: 'C:/conformance/ws', agentPreset: 'conformance' } } } }
}

/**
 * A write context for another session. `preset`/`cwd` left undefined are omitted from the header
 * (a session without a preset writes and sees only the shared layer).
 */
export function writeAs({ session = 'conformance-session', preset, cwd } = {}) {
  const header = {}
  if (cwd !== undefined) header.cwd = cwd
  if (preset !== undefined) header.agentPreset = preset
  return { agent: { session: { id: session, header } } }
}

/**
 * A gate that records every payload it is shown and answers `outcome`.
 * `gate.hook = async (payload, write) => {}` runs once, inside the next approval wait
 * (the hook is cleared before it runs, so writes made by the hook are approved normally).
 */
export function recordingGate(outcome = 'allowed-once') {
  const gate = async (payload, write) => {
    gate.calls.push(clone(payload))
    gate.writes.push(write)
    const hook = gate.hook
    if (hook) {
      gate.hook = null
      await hook(payload, write)
    }
    return typeof gate.outcome === 'function' ? gate.outcome(payload, write) : gate.outcome
  }
  gate.calls = []
  gate.writes = []
  gate.hook = null
  gate.outcome = outcome
  return gate
}

function clone(x) {
  try {
    return structuredClone(x)
  } catch {
    return x
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every protocol error code (spec §7). */
export const PROTOCOL_CODES = [
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

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

export const ENTRY_KEYS = [
  'id',
  'track',
  'scope',
  'workspaceKey',
  'agentKey',
  'text',
  'source',
  'tags',
  'version',
  'createdAt',
  'updatedAt',
  'lastRecalled',
  'recallCount',
  'sessionId',
]

/** Asserts the structural rules of spec §2 for one entry. */
export function assertEntryShape(e, label = 'entry') {
  assert.ok(e && typeof e === 'object', `${label} must be an object`)
  for (const k of ENTRY_KEYS) assert.ok(k in e, `${label} lacks field ${k}`)
  assert.match(e.id, UUID_V4, `${label}.id must be a UUID v4`)
  assert.ok(['user', 'agent'].includes(e.track), `${label}.track`)
  assert.ok(['user-global', 'workspace'].includes(e.scope), `${label}.scope`)
  assert.equal(typeof e.workspaceKey, 'string', `${label}.workspaceKey must be a string`)
  assert.equal(typeof e.agentKey, 'string', `${label}.agentKey must be a string`)
  assert.equal(typeof e.text, 'string', `${label}.text must be a string`)
  assert.ok(e.text.length > 0, `${label}.text must be non-empty`)
  assert.equal(typeof e.source, 'string', `${label}.source must be a string`)
  assert.ok(Array.isArray(e.tags) && e.tags.every((t) => typeof t === 'string'), `${label}.tags must be string[]`)
  assert.ok(Number.isInteger(e.version) && e.version >= 1, `${label}.version must be an integer >= 1`)
  assert.ok(Number.isInteger(e.createdAt), `${label}.createdAt must be an integer (epoch ms)`)
  assert.ok(Number.isInteger(e.updatedAt), `${label}.updatedAt must be an integer (epoch ms)`)
  assert.ok(e.updatedAt >= e.createdAt, `${label}.updatedAt must be >= createdAt`)
  assert.ok(e.lastRecalled === null || Number.isInteger(e.lastRecalled), `${label}.lastRecalled must be null or an integer`)
  assert.ok(Number.isInteger(e.recallCount) && e.recallCount >= 0, `${label}.recallCount must be an integer >= 0`)
  assert.ok(e.sessionId === null || typeof e.sessionId === 'string', `${label}.sessionId must be null or a string`)
}

/** Asserts a usage/budget row `{track, scope, used, limit}`. */
export function assertUsage(u, expected, label = 'usage') {
  assert.ok(u && typeof u === 'object', `${label} must be an object`)
  for (const k of ['track', 'scope', 'used', 'limit']) assert.ok(k in u, `${label} lacks ${k}`)
  assert.ok(Number.isInteger(u.used) && u.used >= 0, `${label}.used must be a non-negative integer`)
  assert.ok(Number.isInteger(u.limit) && u.limit >= 0, `${label}.limit must be a non-negative integer`)
  if (expected) for (const [k, v] of Object.entries(expected)) assert.deepEqual(u[k], v, `${label}.${k}`)
}

/**
 * Runs `fn` (sync throw or async rejection) and asserts a protocol error with `code`.
 * Every protocol error carries a JSON-safe object `.details` and an English `.message`;
 * `details` (if given) is matched key by key (extra keys in the error are allowed).
 * Returns the error.
 */
export async function rejects(fn, code, details, label = '') {
  let err
  let ok = false
  try {
    await fn()
    ok = true
  } catch (e) {
    err = e
  }
  const where = label ? `${label}: ` : ''
  assert.ok(!ok, `${where}expected ${code}, but the call succeeded`)
  assert.ok(err !== null && typeof err === 'object', `${where}expected an Error object with code ${code}, got ${String(err)}`)
  assert.equal(err.code, code, `${where}expected code ${code}, got ${err.code} (${err.message})`)
  assert.equal(typeof err.message, 'string', `${where}${code}: .message must be a string`)
  assert.ok(err.message.length > 0, `${where}${code}: .message must be non-empty`)
  const d = err.details
  assert.ok(
    d !== null && typeof d === 'object' && !Array.isArray(d),
    `${where}${code}: .details must be a plain object, got ${JSON.stringify(d)}`,
  )
  assert.deepEqual(JSON.parse(JSON.stringify(d)), { ...d }, `${where}${code}: .details must be JSON-safe`)
  if (details) {
    for (const [k, v] of Object.entries(details)) {
      assert.deepEqual(d[k], v, `${where}${code}: details.${k} expected ${JSON.stringify(v)}, got ${JSON.stringify(d[k])}`)
    }
  }
  return err
}

/** Runs fn and returns {ok, value} or {ok:false, error}. */
export async function settle(fn) {
  try {
    return { ok: true, value: await fn() }
  } catch (error) {
    return { ok: false, error }
  }
}

/** Entry texts in the store, sorted (order-insensitive comparison). */
export function textsOf(p) {
  return p
    .listEntries()
    .map((e) => e.text)
    .sort()
}

export function byId(p) {
  return new Map(p.listEntries().map((e) => [e.id, e]))
}

/** The newest audit row, optionally with a given action. */
export function lastAudit(p, action) {
  const rows = p.auditList(1000)
  return action ? rows.find((r) => r.action === action) : rows[0]
}

// ---------------------------------------------------------------------------------------------
// Raw SQLite capability (only the migration section needs it).
//
// A factory module may export `sqlite = { exec(file, sql), get(file, sql) }` (sync or async;
// `get` returns the first row as an object, or undefined). Otherwise the runner tries
// node:sqlite (Node >= 22.5), then the `sqlite3` command-line shell, then python3's sqlite3.
// Without any of them the migration cases report `skip`.
// ---------------------------------------------------------------------------------------------

export async function detectSqlite(mod) {
  const fromModule = mod?.sqlite ?? mod?.default?.sqlite
  if (fromModule && typeof fromModule.exec === 'function' && typeof fromModule.get === 'function') {
    return { name: 'provider module export `sqlite`', exec: fromModule.exec, get: fromModule.get }
  }
  try {
    const { DatabaseSync } = await import('node:sqlite')
    return {
      name: 'node:sqlite',
      exec(file, sql) {
        const db = new DatabaseSync(file)
        try {
          db.exec(sql)
        } finally {
          db.close()
        }
      },
      get(file, sql) {
        const db = new DatabaseSync(file)
        try {
          const row = db.prepare(sql).get()
          return row === undefined ? undefined : { ...row }
        } finally {
          db.close()
        }
      },
    }
  } catch {
    // not available on this Node
  }
  const cli = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' })
  if (cli.status === 0) {
    return {
      name: 'sqlite3 CLI',
      exec(file, sql) {
        const r = spawnSync('sqlite3', ['-bail', file], { input: sql, encoding: 'utf8' })
        if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`)
      },
      get(file, sql) {
        const r = spawnSync('sqlite3', ['-json', file], { input: sql, encoding: 'utf8' })
        if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`)
        const out = r.stdout.trim()
        return out ? JSON.parse(out)[0] : undefined
      },
    }
  }
  const py = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' })
  if (py.status === 0) {
    const script = `
import sqlite3, sys, json
mode, path = sys.argv[1], sys.argv[2]
sql = sys.stdin.read()
con = sqlite3.connect(path)
con.row_factory = sqlite3.Row
if mode == 'exec':
    con.executescript(sql)
    con.commit()
else:
    row = con.execute(sql).fetchone()
    print(json.dumps(dict(row) if row is not None else None))
con.close()
`
    return {
      name: 'python3 sqlite3',
      exec(file, sql) {
        const r = spawnSync('python3', ['-c', script, 'exec', file], { input: sql, encoding: 'utf8' })
        if (r.status !== 0) throw new Error(`python3 sqlite3 failed: ${r.stderr}`)
      },
      get(file, sql) {
        const r = spawnSync('python3', ['-c', script, 'get', file], { input: sql, encoding: 'utf8' })
        if (r.status !== 0) throw new Error(`python3 sqlite3 failed: ${r.stderr}`)
        return JSON.parse(r.stdout) ?? undefined
      },
    }
  }
  return null
}
