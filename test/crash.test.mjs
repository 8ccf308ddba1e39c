// Crash safety: a real child process writes in a loop (add, replace, remove,
// consolidate, seed, proposal approval, recall) and is killed with SIGKILL at random points,
// many times, on one store file. After every kill the store must open and hold:
//  - every entry has its add/consolidate-add/seed-add row and every entry-changing audit row's
//    change is present (replaying the audit log yields exactly listEntries());
//  - no duplicate ids; maintained usage = recount; no layer ever over its limit (replayed);
//  - every write the child acknowledged (sent after its promise resolved) is in the audit log;
//  - the audit hash chain verifies (auditVerify);
//  - `PRAGMA integrity_check` = ok, through the sqlite3 CLI when the machine has one (Node 20
//    has no SQLite; the Rust side runs integrity_check after its own kill loop in
//    tests/fuzz_core.rs, which always runs in CI).
// The kill loop runs against the native class and again through the spec §10 factory
// (conformance/provider.mjs), the "independent reliability check" of the issue.
// Reproduce a run with MEMENTO_TEST_SEED=<printed seed>; MEMENTO_CRASH_KILLS sets the count.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fullAudit, LIMITS, NATIVE_BUILT, NATIVE_SKIP, rng, sqliteCli, testSeed, tmpDir, violations } from './support/faults/common.mjs'

const WRITER = fileURLToPath(new URL('./support/faults/writer.mjs', import.meta.url))
const KILLS = Number(process.env.MEMENTO_CRASH_KILLS ?? 100)
const FIRST_OPEN_KILLS = 12
const SEED = testSeed()
const SQLITE = sqliteCli()
// Without the sqlite3 shell the integrity check cannot run: that fails the run, except on Windows
// (the Wine runner, which has no sqlite3.exe), where each reopen is checked by the invariants alone.
if (!SQLITE && process.platform !== 'win32')
  throw new Error('no sqlite3 shell for PRAGMA integrity_check: scripts/test-tools.sh installs it')
const skip = NATIVE_SKIP
const denyAll = async () => 'rejected'

const faults = NATIVE_BUILT ? await import('./support/faults/open.mjs') : null
if (faults) await faults.loadFactory(faults.CONFORMANCE_FACTORY)
const FACTORY_KILLS = 25

function integrity(dbPath) {
  if (!SQLITE) return 'ok' // Windows only (above)
  return execFileSync(SQLITE, [dbPath, 'PRAGMA integrity_check;'], { encoding: 'utf8' }).trim()
}

/** Run one writer until `killAt` resolves, SIGKILL it; returns its acks and how it ended. */
function runAndKill(dbPath, seed, procId, killPlan, factory) {
  return new Promise((resolve, reject) => {
    const env = factory ? { ...process.env, MEMENTO_FAULTS_FACTORY: factory } : process.env
    const child = fork(WRITER, [JSON.stringify({ dbPath, seed, procId, mode: 'loop', limits: LIMITS })], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env,
    })
    const acks = []
    const bad = []
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    let timer = null
    const kill = () => child.kill('SIGKILL')
    if (killPlan.afterSpawnMs !== undefined) timer = setTimeout(kill, killPlan.afterSpawnMs)
    child.on('message', (m) => {
      if (m.t === 'ready' && killPlan.afterReadyMs !== undefined) timer = setTimeout(kill, killPlan.afterReadyMs)
      else if (m.t === 'ack') acks.push(m)
      else if (m.t === 'bad') bad.push(m.rec)
    })
    // A child that never gets ready is killed too (and then fails the loop: no acks, no store).
    const guard = setTimeout(kill, 15_000)
    child.on('error', reject)
    // 'close', not 'exit': IPC messages (acks) can still be in flight at 'exit' (on Windows).
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      clearTimeout(guard)
      resolve({ code, signal, acks, bad, stderr })
    })
  })
}

function checkStore(dbPath, acks, label, factory) {
  const p = faults.openProvider({ factory, dbPath, gate: denyAll, budgets: LIMITS })
  try {
    assert.deepEqual(violations(p, { limits: LIMITS, replayLayers: true }), [], `${label}: store invariants`)
    const rows = fullAudit(p)
    const added = new Set(rows.filter((r) => r.action === 'add' || r.action === 'consolidate-add').map((r) => r.entryId))
    const removed = new Set(rows.filter((r) => r.action === 'remove' || r.action === 'consolidate-remove').map((r) => r.entryId))
    const replaced = new Set(rows.filter((r) => r.action === 'replace').map((r) => r.entryId))
    for (const a of acks) {
      for (const id of a.added ?? []) assert.ok(added.has(id), `${label}: acknowledged ${a.op} of ${id} has its audit row`)
      for (const id of a.removed ?? []) assert.ok(removed.has(id), `${label}: acknowledged ${a.op} removal of ${id} has its audit row`)
      for (const id of a.replaced ?? []) assert.ok(replaced.has(id), `${label}: acknowledged replace of ${id} has its audit row`)
    }
    return { entries: p.listEntries().length, rows: rows.length }
  } finally {
    p.close()
  }
}

test(`SIGKILL during first open (schema creation): ${FIRST_OPEN_KILLS} fresh stores all reopen`, { skip }, async (t) => {
  const dir = tmpDir('memento-crash-open-')
  const r = rng(SEED ^ 0x5eed)
  t.diagnostic(`seed ${SEED}`)
  try {
    for (let i = 0; i < FIRST_OPEN_KILLS; i++) {
      const dbPath = path.join(dir, `fresh-${i}`, 'memory.db')
      const run = await runAndKill(dbPath, SEED + i, `o${i}`, { afterSpawnMs: r.range(5, 90) })
      assert.deepEqual(run.bad, [], 'no non-protocol failure before the kill')
      if (run.signal !== 'SIGKILL') assert.fail(`child ended by itself (code ${run.code}): ${run.stderr}`)
      if (fs.existsSync(dbPath)) {
        checkStore(dbPath, run.acks, `fresh store ${i}`)
        assert.equal(integrity(dbPath), 'ok')
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

async function killLoop(t, kills, factory) {
  const dir = tmpDir('memento-crash-')
  const dbPath = path.join(dir, 'memory.db')
  const r = rng(SEED)
  const started = Date.now()
  let acked = 0
  let killedMidRun = 0
  const allAcks = []
  t.diagnostic(
    `seed ${SEED}; provider: ${factory ? `factory ${path.relative(process.cwd(), factory)}` : 'MemoryProvider'}; integrity_check via ${SQLITE ?? 'none (no sqlite3 CLI on this machine; see tests/fuzz_core.rs)'}`,
  )
  try {
    for (let i = 0; i < kills; i++) {
      // Mostly kill while writing; sometimes during startup/open (prune, migration check).
      const plan = r.chance(0.15) ? { afterSpawnMs: r.range(0, 70) } : { afterReadyMs: r.range(1, 45) }
      const run = await runAndKill(dbPath, SEED + 1000 + i, `k${i}`, plan, factory)
      assert.deepEqual(run.bad, [], `kill ${i}: every failure before the kill was a protocol error`)
      if (run.signal !== 'SIGKILL') assert.fail(`kill ${i}: child ended by itself (code ${run.code}): ${run.stderr}`)
      if (run.acks.length > 0) killedMidRun++
      acked += run.acks.length
      allAcks.push(...run.acks)
      if (!fs.existsSync(dbPath)) continue
      // Everything acknowledged so far, not just by this child, must still be there.
      checkStore(dbPath, allAcks, `after kill ${i} (seed ${SEED})`, factory)
      assert.equal(integrity(dbPath), 'ok', `after kill ${i}: integrity_check`)
    }
    const big = { user: { userGlobal: 100000, workspace: 100000 }, agent: { userGlobal: 100000, workspace: 100000 } }
    const p = faults.openProvider({ factory, dbPath, gate: async () => 'allowed-once', budgets: big })
    const { entry } = await p.add(
      { track: 'user', scope: 'user-global', text: 'still writable after the crashes [final@g]' },
      { agent: { session: { id: 'final' } } },
    )
    assert.ok(p.listEntries().some((e) => e.id === entry.id))
    const final = fullAudit(p)
    p.close()
    t.diagnostic(
      `kills survived: ${kills}; kills that interrupted a writing child: ${killedMidRun}; writes acknowledged before kills: ${acked}; audit rows: ${final.length}; ${Date.now() - started} ms`,
    )
    assert.ok(killedMidRun >= kills / 4, `kills hit a child that was writing (${killedMidRun}/${kills})`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test(
  `SIGKILL at random points of a writing child, ${KILLS} times on one store: every reopen is consistent`,
  { skip, timeout: 120_000 },
  (t) => killLoop(t, KILLS),
)

test(`the same through the conformance factory (conformance/provider.mjs), ${FACTORY_KILLS} kills`, { skip, timeout: 60_000 }, (t) =>
  killLoop(t, FACTORY_KILLS, faults.CONFORMANCE_FACTORY),
)
