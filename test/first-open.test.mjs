// Concurrent first opens: processes that open a store file at the same instant — a new file, or
// a JS-plugin (schema v4) store that needs migrating — all succeed and can all write. A busy
// store is never reported as a corrupt one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { INDEX, NATIVE_BUILT, NATIVE_SKIP } from './support/faults/common.mjs'
import { detectSqlite } from '../conformance/lib.mjs'
import { noSqlite } from './support/raw-sqlite.mjs'
import { buildStore } from '../conformance/cases/m-migration.mjs'

const skip = NATIVE_SKIP
const { MemoryProvider } = NATIVE_BUILT ? await import('../index.mjs') : {}
const PROCESSES = 4
const ROUNDS = 12

// Each child spins until the shared start instant, opens the store and adds one entry.
const OPENER = `
  import { MemoryProvider } from ${JSON.stringify(pathToFileURL(INDEX).href)}
  const [dbPath, startAt, id] = process.argv.slice(1)
  while (Date.now() < Number(startAt)) {}
  try {
    const p = new MemoryProvider({ dbPath, gate: () => 'allowed-once' })
    await p.add({ track: 'user', scope: 'user-global', text: 'fact from opener ' + id }, { agent: { session: { id: 's' + id } } })
    p.close()
    console.log(JSON.stringify({ ok: true }))
  } catch (e) {
    console.log(JSON.stringify({ ok: false, code: e.code, message: e.message, details: e.details }))
  }`

function openAtOnce(dbPath) {
  const startAt = Date.now() + 300
  return Promise.all(
    Array.from({ length: PROCESSES }, (_, i) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', OPENER, dbPath, String(startAt), String(i)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      return new Promise((resolve) => child.on('close', () => resolve(JSON.parse(out.trim() || '{"ok":false,"message":"no output"}'))))
    }),
  )
}

function tmp(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-first-open-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function assertAllWrote(results, dbPath, already = 0) {
  for (const r of results) assert.ok(r.ok, `an opener failed: ${r.code} ${r.message}`)
  const p = new MemoryProvider({ dbPath, gate: () => 'allowed-once' })
  try {
    assert.equal(p.listEntries().length, already + PROCESSES)
    assert.ok(p.auditVerify().ok)
  } finally {
    p.close()
  }
}

test(
  `${PROCESSES} processes opening a new store file at the same instant all open it and write (${ROUNDS} rounds)`,
  { skip },
  async (t) => {
    const dir = tmp(t)
    for (let round = 0; round < ROUNDS; round++) {
      const dbPath = path.join(dir, `r${round}`, 'memory.db')
      assertAllWrote(await openAtOnce(dbPath), dbPath)
    }
  },
)

test(`${PROCESSES} processes racing to migrate a JS-plugin (schema v4) store all succeed, once`, { skip }, async (t) => {
  const sqlite = await detectSqlite()
  if (!sqlite) return noSqlite(t, 'no raw SQLite here to build a v4 store (node:sqlite, the sqlite3 shell or python3)')
  const dir = tmp(t)
  for (let round = 0; round < 4; round++) {
    const dbPath = path.join(dir, `v4-${round}.db`)
    const legacy = await buildStore(sqlite, dbPath, 4)
    assertAllWrote(await openAtOnce(dbPath), dbPath, legacy.length)
  }
})
