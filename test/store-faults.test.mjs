// Store faults: corrupt and truncated files, a newer schema, a read-only
// directory, a read-only file, a full disk and a file-size limit. Every fault must give a coded
// error (never a crash), leave a refused file byte-for-byte untouched, write nothing half-way,
// and the store must reopen consistent once the fault is gone.
//
// How the faults are made (nothing is simulated in the provider):
//  - corrupt/truncated files: bytes of a real store written by the provider, then cut or
//    overwritten. The newer schema is one UPDATE of its `meta` row, by the raw SQLite the
//    conformance runner finds (node:sqlite, the sqlite3 shell or python3; skipped without one).
//  - read-only directory: as non-root `chmod 0500`; as root (chmod does not bind root) a tmpfs
//    mounted and remounted read-only; skipped with the reason when neither is possible.
//  - read-only file: as non-root `chmod 0444`; as root `chattr +i` (immutable, binds root);
//    skipped with the reason when the file system refuses it (tmpfs, overlayfs).
//  - disk full: a tiny tmpfs (root only; skipped otherwise).
//  - file-size limit: `ulimit -f` (RLIMIT_FSIZE) on a child process — works for any user, the
//    kernel then fails write(2) with EFBIG.
// File-system faults are exercised in child processes (support/faults/poke.mjs, fill.mjs) so a
// crash would show as an exit status rather than kill the test runner.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, fork, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fullAudit, NATIVE_BUILT, NATIVE_SKIP, tmpDir, violations } from './support/faults/common.mjs'
import { detectSqlite } from '../conformance/lib.mjs'
import { noSqlite } from './support/raw-sqlite.mjs'

const POKE = fileURLToPath(new URL('./support/faults/poke.mjs', import.meta.url))
const FILL = fileURLToPath(new URL('./support/faults/fill.mjs', import.meta.url))
const skip = NATIVE_SKIP
const { MemoryProvider } = NATIVE_BUILT ? await import('../index.mjs') : {}
const faults = NATIVE_BUILT ? await import('./support/faults/open.mjs') : null
if (faults) await faults.loadFactory(faults.CONFORMANCE_FACTORY)
const allow = async () => 'allowed-once'
const W = { agent: { session: { id: 'faults', header: { cwd: '/srv/fault/ws0' } } } }
const ROOT = process.getuid?.() === 0
const WIN = process.platform === 'win32'
const HUGE = { user: { userGlobal: 1e9, workspace: 1e9 }, agent: { userGlobal: 1e9, workspace: 1e9 } }

/** A real store with `n` entries (closed, so the WAL is checkpointed into the main file). */
async function makeStore(dbPath, n = 120) {
  const p = new MemoryProvider({ dbPath, gate: allow, budgets: HUGE })
  for (let i = 0; i < n; i++)
    await p.add({ track: i % 2 ? 'user' : 'agent', scope: 'user-global', text: `entry [e${i}@g] ${'notes '.repeat(20)}` }, W)
  const entries = p.listEntries()
  p.close()
  return entries
}

const snapshot = (dir) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]),
  )

function runChild(script, config, { rlimitBlocks, factory } = {}) {
  return new Promise((resolve, reject) => {
    const args = [script, JSON.stringify(config)]
    const env = factory ? { ...process.env, MEMENTO_FAULTS_FACTORY: factory } : process.env
    const child = rlimitBlocks
      ? spawn('/bin/sh', ['-c', `ulimit -f ${rlimitBlocks} && exec "$0" "$@"`, process.execPath, ...args], {
          stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
          env,
        })
      : fork(script, [args[1]], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'], env })
    let report = null
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('message', (m) => m.t === 'done' && (report = m))
    // A child that hangs on a fault is a failure, not a stuck test run.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    // 'close', not 'exit': IPC messages can still be in flight at 'exit' (they are, on Windows).
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, report, stderr })
    })
  })
}

function assertChildClean(run, what) {
  assert.equal(run.signal, null, `${what}: the child was not killed by a signal (${run.signal}): ${run.stderr}`)
  assert.equal(run.code, 0, `${what}: the child exited 0: ${run.stderr}`)
  assert.ok(run.report, `${what}: the child reported`)
}

function sh(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'pipe' })
    return null
  } catch (e) {
    return String(e.stderr || e.message).trim()
  }
}

/** Mount a tmpfs (root only). Returns {dir, unmount} or {reason}. */
function mountTmpfs(size) {
  if (WIN) return { reason: 'Windows has no tmpfs to mount' }
  if (!ROOT) return { reason: 'mounting a tmpfs needs root' }
  const dir = tmpDir('memento-tmpfs-')
  const err = sh('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir])
  if (err) {
    fs.rmSync(dir, { recursive: true, force: true })
    return { reason: `cannot mount a tmpfs here: ${err}` }
  }
  return {
    dir,
    remount: (mode) => sh('mount', ['-o', `remount,${mode}`, dir]),
    unmount: () => {
      sh('umount', ['-l', dir])
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

describe('corrupt and foreign files', { skip }, () => {
  test('corrupt, truncated and zero-headed files: STORE_CORRUPT, bytes and directory untouched', async () => {
    const work = tmpDir('memento-corrupt-')
    try {
      await makeStore(path.join(work, 'source.db'))
      const real = fs.readFileSync(path.join(work, 'source.db'))
      assert.ok(real.length > 8 * 4096, 'the source store spans many pages')
      const noise = (n, salt) => Buffer.from(Array.from({ length: n }, (_, i) => (Math.imul(i + salt, 2654435761) >>> 24) & 255))
      const patch = (buf, from, to, fill) => {
        const b = Buffer.from(buf)
        if (typeof fill === 'number') b.fill(fill, from, to)
        else fill.copy(b, from, 0, to - from)
        return b
      }
      const page = 4096
      const cases = {
        'random bytes': noise(16384, 1),
        'SQLite magic then random bytes': Buffer.concat([Buffer.from('SQLite format 3\0'), noise(16384, 2)]),
        'zeroed 100-byte header': patch(real, 0, 100, 0),
        'zeroed header after the magic': patch(real, 16, 100, 0),
        'truncated to 10 bytes': real.subarray(0, 10),
        'truncated inside the header (50 bytes)': real.subarray(0, 50),
        'truncated to the header (100 bytes)': real.subarray(0, 100),
        'truncated to one page': real.subarray(0, page),
        'truncated to half, page-aligned': real.subarray(0, Math.floor(real.length / 2 / page) * page),
        'truncated mid-page': real.subarray(0, Math.floor(real.length / 2) + 7),
        'garbage over page 1 (schema)': patch(real, 100, page, noise(page - 100, 3)),
      }
      for (const [name, bytes] of Object.entries(cases)) {
        const dir = fs.mkdtempSync(path.join(work, 'case-'))
        const dbPath = path.join(dir, 'memory.db')
        fs.writeFileSync(dbPath, bytes, { mode: 0o600 })
        const before = snapshot(dir)
        for (const factory of [undefined, faults.CONFORMANCE_FACTORY]) {
          const via = factory ? ' (via conformance/provider.mjs)' : ''
          assert.throws(
            () => faults.openProvider({ factory, dbPath, gate: allow }),
            (e) =>
              e.code === 'STORE_CORRUPT' &&
              e.details?.path === dbPath &&
              e.details.reason === 'corrupt' &&
              e.details.retryable === false &&
              /restore the file from a backup/.test(e.message) &&
              // SQLite's own error rides along as the cause when SQLite is the one that refused.
              (!name.startsWith('garbage') || (e.cause instanceof Error && /malformed|not a database/.test(e.cause.message))),
            name + via,
          )
          assert.deepEqual(snapshot(dir), before, `${name}${via}: the file is byte-for-byte untouched and no sidecar was left`)
        }
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })

  test('a corrupt page deep in the file: every call is a result or a coded error, never a crash', async () => {
    const work = tmpDir('memento-deep-')
    try {
      const dbPath = path.join(work, 'memory.db')
      await makeStore(dbPath)
      const bytes = fs.readFileSync(dbPath)
      for (let i = 4096 * 4; i < 4096 * 6; i++) bytes[i] = (Math.imul(i, 7919) >>> 3) & 255
      fs.writeFileSync(dbPath, bytes)
      const run = await runChild(POKE, { dbPath, match: '[e1@g]' })
      assertChildClean(run, 'corrupt page')
      const { opened, openError, results } = run.report
      if (!opened) assert.deepEqual([openError.code, openError.reason], ['STORE_CORRUPT', 'corrupt'], openError.message)
      for (const [name, r] of Object.entries(results)) if (!r.ok) assert.ok(r.protocol, `${name}: ${r.code} ${r.message}`)
      assert.ok(
        !opened || Object.values(results).some((r) => !r.ok && r.code === 'STORE_CORRUPT' && r.reason === 'corrupt'),
        'the corruption is reported as such, not hidden',
      )
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })

  test('a store written by a newer schema: STORE_UNSUPPORTED_VERSION, file untouched', async (t) => {
    const sqlite = await detectSqlite()
    if (!sqlite) return noSqlite(t, 'no raw SQLite here (node:sqlite, sqlite3 shell or python3) to write a newer version')
    const work = tmpDir('memento-newer-')
    try {
      const dbPath = path.join(work, 'memory.db')
      await makeStore(dbPath, 20)
      await sqlite.exec(dbPath, "UPDATE meta SET value = '99' WHERE key = 'schema_version';")
      const before = snapshot(work)
      for (const factory of [undefined, faults.CONFORMANCE_FACTORY]) {
        assert.throws(
          () => faults.openProvider({ factory, dbPath, gate: allow }),
          (e) => e.code === 'STORE_UNSUPPORTED_VERSION' && e.details?.path === dbPath,
        )
      }
      assert.deepEqual(snapshot(work), before, 'untouched, no sidecar left')
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })
})

const summary = (report) =>
  report.opened
    ? Object.entries(report.results)
        .map(([k, r]) => `${k}:${r.ok ? 'ok' : r.code}`)
        .join(' ')
    : `open refused: ${report.openError.code} ${report.openError.message}`

/** Outcomes of poke.mjs under a read-only fault: reads answer, writes are coded refusals. */
function assertReadOnlyOutcome(report, entries, what) {
  if (!report.opened) {
    assert.equal(report.openError.code, 'STORE_CORRUPT', `${what}: open refused with a code: ${report.openError.message}`)
    assert.equal(report.openError.reason, 'readonly', `${what}: ${report.openError.message}`)
    return
  }
  const r = report.results
  for (const [name, res] of Object.entries(r))
    if (!res.ok) assert.ok(res.protocol, `${what}: ${name} failed without a protocol code: ${res.message}`)
  for (const [name, res] of Object.entries(r)) {
    if (res.ok || res.code !== 'STORE_CORRUPT') continue
    assert.deepEqual([res.reason, res.retryable], ['readonly', false], `${what}: ${name}: ${res.message}`)
    assert.match(res.message, /make the file and its folder writable/)
  }
  for (const name of ['add', 'remove', 'recall', 'proposalAdd'])
    assert.equal(r[name].ok, false, `${what}: ${name} cannot succeed on a read-only store`)
  if (r.listEntries.ok) assert.equal(r.listEntries.value, entries.length, `${what}: reads see every entry`)
}

describe('read-only and full file systems', { skip }, () => {
  test(
    'read-only directory: a new store and an existing one give coded errors; nothing changes',
    {
      skip:
        WIN &&
        'Windows has no read-only folders: chmod sets the read-only attribute, which Windows ignores on a folder (only an ACL deny entry would do)',
    },
    async (t) => {
      let ro
      if (!ROOT) {
        const dir = tmpDir('memento-rodir-')
        ro = {
          dir,
          remount: (mode) => (fs.chmodSync(dir, mode === 'ro' ? 0o500 : 0o700), null),
          unmount: () => (fs.chmodSync(dir, 0o700), fs.rmSync(dir, { recursive: true, force: true })),
        }
      } else {
        ro = mountTmpfs('8m')
        if (ro.reason) return t.skip(`running as root, where chmod does not make a directory read-only, and ${ro.reason}`)
      }
      try {
        const dbPath = path.join(ro.dir, 'memory.db')
        const entries = await makeStore(dbPath, 30)
        const before = snapshot(ro.dir)
        assert.equal(ro.remount('ro'), null)
        const fresh = await runChild(POKE, { dbPath: path.join(ro.dir, 'sub', 'new.db') })
        assertChildClean(fresh, 'new store in a read-only directory')
        assert.equal(fresh.report.opened, false, 'a store cannot be created in a read-only directory')
        assert.equal(fresh.report.openError.code, 'STORE_CORRUPT', fresh.report.openError.message)
        const run = await runChild(POKE, { dbPath, match: '[e1@g]' })
        assertChildClean(run, 'existing store in a read-only directory')
        assertReadOnlyOutcome(run.report, entries, 'read-only directory')
        t.diagnostic(`read-only directory (${ROOT ? 'read-only tmpfs' : 'chmod 0500'}): ${summary(run.report)}`)
        assert.deepEqual(snapshot(ro.dir), before, 'nothing in the directory changed')
        assert.equal(ro.remount('rw'), null)
        const p = new MemoryProvider({ dbPath, gate: allow, budgets: HUGE })
        assert.deepEqual(p.listEntries(), entries)
        assert.deepEqual(violations(p), [])
        p.close()
      } finally {
        ro.remount('rw')
        ro.unmount()
      }
    },
  )

  test('read-only store file in a writable directory: coded errors, the file unchanged', async (t) => {
    const work = tmpDir('memento-rofile-')
    const dbPath = path.join(work, 'memory.db')
    let release = () => {}
    try {
      const entries = await makeStore(dbPath, 30)
      const before = fs.readFileSync(dbPath)
      if (ROOT) {
        const err = sh('chattr', ['+i', dbPath])
        if (err) return t.skip(`running as root, where chmod does not make a file read-only, and chattr +i is refused here: ${err}`)
        release = () => sh('chattr', ['-i', dbPath])
      } else {
        // On Windows this sets the read-only attribute, which every user's writes obey.
        fs.chmodSync(dbPath, 0o400)
        release = () => fs.chmodSync(dbPath, 0o600)
        let writable = false
        try {
          fs.closeSync(fs.openSync(dbPath, 'r+'))
          writable = true
        } catch {}
        if (writable)
          return t.skip(
            'chmod 0400 did not make the file read-only here (Wine run as root maps the read-only attribute to a mode that root ignores)',
          )
      }
      const run = await runChild(POKE, { dbPath, match: '[e1@g]' })
      assertChildClean(run, 'read-only file')
      assertReadOnlyOutcome(run.report, entries, 'read-only file')
      t.diagnostic(`read-only file (${ROOT ? 'chattr +i' : 'chmod 0400'}): ${summary(run.report)}`)
      assert.deepEqual(fs.readFileSync(dbPath), before, 'the store file is unchanged')
      release()
      release = () => {}
      const p = new MemoryProvider({ dbPath, gate: allow, budgets: HUGE })
      assert.deepEqual(p.listEntries(), entries)
      assert.deepEqual(violations(p), [])
      p.close()
    } finally {
      release()
      fs.rmSync(work, { recursive: true, force: true })
    }
  })

  /** After a fill run: every acknowledged write is there, nothing else, and the store is whole. */
  function checkAfterFill(dbPath, report, what) {
    const writes = report.results.filter((r) => !r.read && !r.close)
    const failures = report.results.filter((r) => !r.ok)
    for (const f of failures) assert.ok(f.protocol, `${what}: failure without a protocol code: ${f.code} ${f.message}`)
    assert.ok(
      writes.some((r) => !r.ok),
      `${what}: the fault was actually hit`,
    )
    const p = new MemoryProvider({ dbPath, gate: allow, budgets: HUGE })
    const ids = new Set(p.listEntries().map((e) => e.id))
    const landed = writes.filter((r) => r.ok).map((r) => r.id)
    for (const id of landed) assert.ok(ids.has(id), `${what}: acknowledged write ${id} survived`)
    assert.equal(ids.size, landed.length, `${what}: no failed write left an entry`)
    assert.deepEqual(violations(p), [], `${what}: store invariants`)
    const adds = fullAudit(p).filter((r) => r.action === 'add').length
    assert.equal(adds, landed.length, `${what}: one add row per landed write, none for failed ones`)
    p.close()
    return { landed: landed.length, failed: writes.length - landed.length }
  }

  test('disk full (a tiny tmpfs): coded errors, nothing half written, the store reopens', async (t) => {
    const fsMount = mountTmpfs('640k')
    if (fsMount.reason) return t.skip(fsMount.reason)
    try {
      const dbPath = path.join(fsMount.dir, 'memory.db')
      const run = await runChild(FILL, { dbPath, attempts: 400, units: 3000, after: 6 })
      assertChildClean(run, 'disk full')
      assert.equal(run.report.opened, true, run.report.openError?.message)
      assert.ok(
        run.report.results.some((r) => !r.ok && /disk full|disk I\/O|database or disk is full/i.test(r.message)),
        'the failure names the disk',
      )
      const refused = run.report.results.filter((r) => !r.ok && r.code === 'STORE_CORRUPT')
      assert.ok(
        refused.length > 0 && refused.every((r) => r.reason === 'full' && r.retryable === false),
        JSON.stringify(refused.slice(0, 2)),
      )
      assert.match(refused[0].message, /free disk space, then retry/)
      // Reopening on the still-full disk: coded error or success, in a child (a full tmpfs
      // can SIGBUS a process that maps the -shm file).
      const full = await runChild(POKE, { dbPath })
      assertChildClean(full, 'reopen on a full disk')
      if (!full.report.opened) assert.equal(full.report.openError.code, 'STORE_CORRUPT')
      for (const [name, r] of Object.entries(full.report.results)) if (!r.ok) assert.ok(r.protocol, `${name}: ${r.message}`)
      // The fill child's acknowledged writes survive and the store is coherent; the poke child
      // may have landed its own add (if space allowed), which checkAfterFill counts as extra —
      // so drop it first when present.
      const stats = checkAfterFillTolerant(dbPath, run.report, full.report, 'disk full')
      t.diagnostic(`disk full: ${stats.landed} writes landed, ${stats.failed} refused with a code`)
    } finally {
      fsMount.unmount()
    }
  })

  function checkAfterFillTolerant(dbPath, fillReport, pokeReport, what) {
    const pokeAdded = pokeReport.results?.add?.ok ? pokeReport.results.add.value : null
    assert.equal(pokeReport.results?.remove?.value ?? null, null, 'poke had no match to remove')
    if (pokeAdded) {
      const p = new MemoryProvider({ dbPath, gate: allow, budgets: HUGE })
      assert.ok(
        p.listEntries().some((e) => e.id === pokeAdded),
        'a write reported landed did land',
      )
      p.close()
      const writes = fillReport.results.filter((r) => !r.read && !r.close)
      return { landed: writes.filter((r) => r.ok).length + 1, failed: writes.filter((r) => !r.ok).length }
    }
    return checkAfterFill(dbPath, fillReport, what)
  }

  for (const factory of [undefined, faults?.CONFORMANCE_FACTORY])
    test(
      `file-size limit (RLIMIT_FSIZE, any user)${factory ? ' via conformance/provider.mjs' : ''}: coded errors, nothing half written, the store reopens`,
      { skip: WIN && 'RLIMIT_FSIZE (ulimit -f in /bin/sh) is POSIX: Windows has no per-process file-size limit' },
      async (t) => {
        const work = tmpDir('memento-fsize-')
        try {
          const dbPath = path.join(work, 'memory.db')
          // dash/bash count `ulimit -f` in 512/1024-byte blocks: 2048 blocks is 1–2 MiB.
          const run = await runChild(FILL, { dbPath, attempts: 600, units: 3000, after: 6 }, { rlimitBlocks: 2048, factory })
          assertChildClean(run, 'file-size limit')
          assert.equal(run.report.opened, true, run.report.openError?.message)
          const stats = checkAfterFill(dbPath, run.report, 'file-size limit')
          t.diagnostic(`file-size limit: ${stats.landed} writes landed, ${stats.failed} refused with a code`)
        } finally {
          fs.rmSync(work, { recursive: true, force: true })
        }
      },
    )
})

describe('tamper-evident audit against bytes edited on disk', { skip }, () => {
  test('one byte of one audit row changed in the file: auditVerify names that row; an untouched copy verifies', async () => {
    assert.equal(typeof MemoryProvider.prototype.auditVerify, 'function', 'the provider verifies its audit chain (auditVerify)')
    const work = tmpDir('memento-tamper-')
    try {
      const dbPath = path.join(work, 'memory.db')
      let answer = 'allowed-once'
      const p = new MemoryProvider({ dbPath, gate: async () => answer, budgets: HUGE })
      for (let i = 0; i < 20; i++) await p.add({ track: 'user', scope: 'user-global', text: `before [b${i}@g] notes` }, W)
      answer = 'rejected'
      await p.add({ track: 'user', scope: 'user-global', text: 'tamper target QQQ-7 only in the audit' }, W).catch(() => {})
      const target = p.auditList(1)[0]
      assert.equal(target.action, 'add-denied')
      answer = 'allowed-once'
      for (let i = 0; i < 20; i++) await p.add({ track: 'user', scope: 'user-global', text: `after [a${i}@g] notes` }, W)
      const clean = p.auditVerify()
      assert.equal(clean.ok, true)
      assert.equal(clean.checked, fullAudit(p).length)
      assert.match(clean.head, /^[0-9a-f]{64}$/)
      p.close()
      const bytes = fs.readFileSync(dbPath)
      let hits = 0
      for (let at = bytes.indexOf('QQQ-7'); at >= 0; at = bytes.indexOf('QQQ-7', at + 1)) {
        bytes[at + 4] = 0x38 // '7' -> '8', same length: the row still parses, only its content changed
        hits++
      }
      assert.equal(hits, 1, 'the denied text is stored once, in its audit row')
      fs.writeFileSync(dbPath, bytes)
      const q = new MemoryProvider({ dbPath, gate: async () => 'rejected', budgets: HUGE })
      assert.ok(
        fullAudit(q).some((r) => r.text === 'tamper target QQQ-8 only in the audit'),
        'the edit is visible',
      )
      const v = q.auditVerify()
      assert.equal(v.ok, false)
      assert.equal(v.firstBroken?.seq, target.seq, `the first broken row is the edited one: ${JSON.stringify(v.firstBroken)}`)
      assert.equal(q.listEntries().length, 40, 'entries are unaffected')
      q.close()
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })
})
