// Multiple processes on one store, and the approval faults test/provider.test.mjs does not
// cover. Real child processes (test/support/faults/writer.mjs,
// burst.mjs) write to one SQLite file at the same time as each other and as this process.
// Reproduce a run with MEMENTO_TEST_SEED=<printed seed>.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fullAudit, LIMITS, NATIVE_BUILT, NATIVE_SKIP, testSeed, tmpDir, violations, writeFor } from './support/faults/common.mjs'

const WRITER = fileURLToPath(new URL('./support/faults/writer.mjs', import.meta.url))
const BURST = fileURLToPath(new URL('./support/faults/burst.mjs', import.meta.url))
const SEED = testSeed()
const skip = NATIVE_SKIP
const mod = NATIVE_BUILT ? await import('../index.mjs') : {}
const { MemoryProvider, ERROR_CODES } = mod
const faults = NATIVE_BUILT ? await import('./support/faults/open.mjs') : null
if (faults) await faults.loadFactory(faults.CONFORMANCE_FACTORY)
const allow = async () => 'allowed-once'
const deny = async () => 'rejected'
const W = writeFor('conc-main', { workspaceKey: '/srv/fault/ws0' })
const TIGHT = { user: { userGlobal: 300, workspace: 350 }, agent: { userGlobal: 400, workspace: 450 } }
const describeThrown = (e) =>
  typeof e === 'symbol'
    ? e.toString()
    : `${e?.constructor?.name ?? typeof e} ${e?.code ?? ''} "${(() => {
        try {
          return String(e?.message ?? e)
        } catch {
          return '?'
        }
      })()}"`

/** Fork children, wait until all are ready, start them together, collect their results. */
async function runTogether(script, configs, factory) {
  const env = factory ? { ...process.env, MEMENTO_FAULTS_FACTORY: factory } : process.env
  const children = configs.map((c) => fork(script, [JSON.stringify(c)], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'], env }))
  const runs = children.map(
    (child) =>
      new Promise((resolve, reject) => {
        const out = { results: null, bad: [], stderr: '', ready: null }
        // Ready when it says so — or when it died first (the exit is then reported below).
        out.ready = new Promise((r) => {
          child.on('message', (m) => m.t === 'ready' && r())
          child.on('exit', r)
        })
        child.on('message', (m) => {
          if (m.t === 'done') out.results = m.results
          if (m.t === 'bad') out.bad.push(m.rec)
        })
        child.stderr.on('data', (d) => (out.stderr += d))
        child.on('error', reject)
        // 'close', not 'exit': IPC messages can still be in flight at 'exit' (they are, on Windows).
        child.on('close', (code, signal) => resolve({ ...out, code, signal }))
        child.out = out
      }),
  )
  await Promise.all(children.map((c) => c.out.ready))
  for (const c of children) if (c.connected) c.send({ t: 'go' })
  return Promise.all(runs)
}

function assertProtocolFailures(runs) {
  for (const [i, run] of runs.entries()) {
    assert.equal(run.signal, null, `child ${i} was not killed: ${run.stderr}`)
    assert.equal(run.code, 0, `child ${i} exited 0: ${run.stderr}`)
    assert.deepEqual(run.bad, [], `child ${i}: no non-protocol failure`)
    assert.ok(Array.isArray(run.results), `child ${i} reported its results`)
    for (const rec of run.results) {
      if (rec.ok) continue
      assert.ok(ERROR_CODES.includes(rec.code), `child ${i}: ${rec.op} failed with a protocol code, got ${rec.code}: ${rec.message}`)
      assert.notEqual(rec.code, 'STORE_CORRUPT', `child ${i}: ${rec.op} lost a lock race: ${rec.message}`)
      assert.doesNotMatch(rec.message, /SQLITE_BUSY|database is locked|database table is locked/i)
    }
  }
}

describe('multiple processes on one store', { skip }, () => {
  async function contested(t, N, M, factory) {
    const dir = tmpDir('memento-conc-')
    const dbPath = path.join(dir, 'memory.db')
    let q = null
    try {
      const p = faults.openProvider({ factory, dbPath, gate: allow, budgets: TIGHT })
      const targets = []
      for (let i = 0; i < 24; i++) {
        const track = i % 2 ? 'user' : 'agent'
        const scope = i % 3 ? 'workspace' : 'user-global'
        const match = `[t${i}@${scope === 'workspace' ? '0' : 'g'}]`
        const { entry } = await p.add({ track, scope, text: `${match} contested` }, W)
        targets.push({ id: entry.id, match, track, scope, workspaceKey: entry.workspaceKey, agentKey: '' })
      }
      p.close()
      const configs = Array.from({ length: N }, (_, i) => ({
        dbPath,
        seed: SEED + i,
        procId: `w${i}`,
        mode: 'ops',
        ops: M,
        limits: TIGHT,
        gateDelayMs: 3,
        denyRate: 0.02,
        removeTargets: targets,
        protect: '[t',
        waitFor: 'go',
      }))
      const started = Date.now()
      const runs = await runTogether(WRITER, configs, factory)
      const elapsed = Date.now() - started
      assertProtocolFailures(runs)

      q = faults.openProvider({ factory, dbPath, gate: deny, budgets: TIGHT })
      assert.deepEqual(violations(q, { limits: TIGHT, replayLayers: true }), [], 'store invariants (replayed budgets never over the limit)')
      const rows = fullAudit(q)
      const rowsOf = (actions, id) => rows.filter((r) => actions.includes(r.action) && r.entryId === id)
      // No lost writes: every fulfilled write has its row.
      const all = runs.flatMap((r) => r.results)
      for (const rec of all.filter((x) => x.ok)) {
        for (const id of rec.added ?? [])
          assert.equal(rowsOf(['add', 'consolidate-add'], id).length, 1, `${rec.op} of ${id} has exactly one add row`)
        for (const id of rec.removed ?? [])
          assert.equal(rowsOf(['remove', 'consolidate-remove'], id).length, 1, `${rec.op} removal of ${id} has exactly one row`)
        for (const id of rec.replaced ?? []) assert.ok(rowsOf(['replace'], id).length >= 1, `replace of ${id} has its row`)
      }
      // Contested removes: one winner per target, every loser ENTRY_NOT_FOUND (or denied).
      const live = new Set(q.listEntries().map((e) => e.id))
      let contested = 0
      for (const target of targets) {
        const attempts = all.filter((rec) => rec.contested && rec.target === target.match)
        contested += attempts.length
        assert.equal(attempts.length, N, `${target.match}: every process tried`)
        const won = attempts.filter((a) => a.ok)
        const removals = rowsOf(['remove', 'consolidate-remove'], target.id)
        assert.ok(won.length <= 1, `${target.match}: removed by ${won.length} processes`)
        assert.equal(removals.length, won.length, `${target.match}: one remove row per winner`)
        for (const a of attempts.filter((x) => !x.ok))
          assert.ok(['ENTRY_NOT_FOUND', 'WRITE_DENIED'].includes(a.code), `${target.match}: loser got ${a.code}`)
        if (attempts.some((a) => a.code !== 'WRITE_DENIED'))
          assert.equal(won.length, 1, `${target.match}: not every attempt was denied, so one won`)
        assert.equal(live.has(target.id), won.length === 0, `${target.match}: present iff nobody removed it`)
      }
      const codes = {}
      for (const rec of all) codes[rec.ok ? 'ok' : rec.code] = (codes[rec.ok ? 'ok' : rec.code] ?? 0) + 1
      q.close()
      q = null
      t.diagnostic(
        `${factory ? 'via conformance/provider.mjs; ' : ''}seed ${SEED}; concurrent operations: ${all.length} (${contested} contested removes) in ${elapsed} ms; outcomes ${JSON.stringify(codes)}`,
      )
    } finally {
      // Close before removing: Windows cannot delete an open store (EBUSY would hide the failure).
      q?.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }

  test('4 writers × 150 mixed writes + 24 removes contested by all: no lost write, no double remove, no overshoot', (t) =>
    contested(t, 4, 150))
  test('the same through the conformance factory (conformance/provider.mjs): 4 writers × 60', (t) =>
    contested(t, 4, 60, faults.CONFORMANCE_FACTORY))

  test('budget race: 4 processes × 15 simultaneous approved adds into one 600-unit layer land exactly 12', async (t) => {
    const dir = tmpDir('memento-race-')
    const dbPath = path.join(dir, 'memory.db')
    try {
      const limits = { user: { userGlobal: 600, workspace: 2000 }, agent: { userGlobal: 4000, workspace: 4000 } }
      const configs = Array.from({ length: 4 }, (_, i) => ({
        dbPath,
        procId: i,
        count: 15,
        units: 50,
        track: 'user',
        scope: 'user-global',
        limits,
        gateDelayMs: 25,
      }))
      const runs = await runTogether(BURST, configs)
      assertProtocolFailures(runs)
      const all = runs.flatMap((r) => r.results)
      const won = all.filter((r) => r.ok)
      assert.equal(won.length, 12, 'exactly limit / units writes land')
      for (const r of won) assert.ok(r.used <= 600, `usage reported ${r.used}`)
      for (const r of all.filter((x) => !x.ok)) assert.equal(r.code, 'BUDGET_EXCEEDED', r.message)
      const q = new MemoryProvider({ dbPath, gate: deny, budgets: limits })
      assert.deepEqual(violations(q, { limits, replayLayers: true }), [])
      assert.equal(q.budgets()[0].used, 600)
      q.close()
      t.diagnostic(`budget race: ${all.length} concurrent approved adds, ${won.length} landed, ${all.length - won.length} BUDGET_EXCEEDED`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('undo while another process writes', { skip }, () => {
  test('reverts land while a child process writes to the same store and layers: nothing is lost, the chain verifies', async (t) => {
    const dir = tmpDir('memento-conc-revert-')
    const dbPath = path.join(dir, 'memory.db')
    const ROOMY = { user: { userGlobal: 100_000, workspace: 100_000 }, agent: { userGlobal: 100_000, workspace: 100_000 } }
    // The approval takes a while: the child commits between this process's plan and its commit.
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 25))
      return 'allowed-once'
    }
    const p = new MemoryProvider({ dbPath, gate: slow, budgets: ROOMY })
    let q = null
    try {
      // This process's entries (markers `[u…]`, which the child leaves alone) in a layer the child writes too.
      const layer = { track: 'user', scope: 'workspace' }
      const tabs = await p.add({ ...layer, text: '[u1@0] indent with tabs' }, W)
      await p.replace({ ...layer, match: '[u1@0]', text: '[u1@0] indent with spaces' }, W)
      const parts = []
      for (const i of [2, 3, 4]) parts.push((await p.add({ ...layer, text: `[u${i}@0] part ${i}` }, W)).entry)
      const merged = await p.consolidate({ ...layer, matches: ['[u2@0]', '[u3@0]', '[u4@0]'], text: '[u5@0] the three parts' }, W)
      const seqOf = (action, text) => p.auditList(50).find((r) => r.action === action && r.text === text).seq
      const replaceSeq = seqOf('replace', '[u1@0] indent with spaces')
      const consolidateSeq = seqOf('consolidate-add', '[u5@0] the three parts')
      const before = p.auditList(1)[0].seq

      const config = {
        dbPath,
        seed: SEED,
        procId: 'w0',
        mode: 'ops',
        ops: 150,
        limits: ROOMY,
        gateDelayMs: 3,
        denyRate: 0.02,
        protect: '[u',
        waitFor: 'go',
      }
      const running = runTogether(WRITER, [config])
      // Once the child is writing, undo both changes, each through the slow gate.
      while (p.auditList(1)[0].seq === before) await new Promise((resolve) => setTimeout(resolve, 5))
      const undone = [await p.revert(replaceSeq, W), await p.revert(consolidateSeq, W)]
      const mine = p.auditList(1000).filter((r) => r.sessionId === W.agent.session.id && r.seq > before)
      const [first, last] = [mine.at(-1).seq, mine[0].seq]
      const between = p.auditList(1000).filter((r) => r.seq > first && r.seq < last && r.sessionId?.startsWith('w0')).length
      assert.ok(between > 0, 'the child committed while the reverts waited for their approval')
      const runs = await running
      assertProtocolFailures(runs)

      q = new MemoryProvider({ dbPath, gate: deny, budgets: ROOMY })
      // The reverts: every entry back to exactly what it was, ids included.
      assert.deepEqual(
        undone.map((r) => [r.reverted, r.changes.map((c) => c.action).sort()]),
        [
          [replaceSeq, ['replace']],
          [consolidateSeq, ['remove', 'restore', 'restore', 'restore']],
        ],
      )
      const live = new Map(q.listEntries().map((e) => [e.id, e]))
      assert.equal(live.get(tabs.entry.id).text, '[u1@0] indent with tabs')
      for (const e of parts) assert.equal(live.get(e.id)?.text, e.text, `${e.text} restored under its id`)
      assert.equal(live.has(merged.entry.id), false, 'the merged entry removed')
      // No lost write: every write the child reported has its rows, and it is still there unless the child removed it.
      const rows = fullAudit(q)
      const rowsOf = (actions, id) => rows.filter((r) => actions.includes(r.action) && r.entryId === id)
      const results = runs[0].results
      for (const rec of results.filter((x) => x.ok)) {
        for (const id of rec.added ?? [])
          assert.equal(rowsOf(['add', 'consolidate-add'], id).length, 1, `${rec.op} of ${id} has its add row`)
        for (const id of rec.removed ?? [])
          assert.equal(rowsOf(['remove', 'consolidate-remove'], id).length, 1, `${rec.op} of ${id} has its row`)
      }
      const removedByChild = new Set(results.flatMap((x) => x.removed ?? []))
      for (const id of results.flatMap((x) => (x.ok ? (x.added ?? []) : [])))
        assert.equal(live.has(id), !removedByChild.has(id), `${id}: present iff the child removed it`)
      assert.deepEqual(violations(q, { limits: ROOMY }), [], 'replaying the ledger gives exactly the store; usage recounts')
      assert.equal(q.auditVerify().ok, true)
      t.diagnostic(
        `seed ${SEED}: ${results.length} child writes (${results.filter((x) => x.ok).length} landed); the reverts' rows #${first}..#${last} have ${between} rows of the child between them`,
      )
    } finally {
      p.close()
      q?.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** 'fulfilled', or what the write rejected with (a synchronous throw is reported as such). */
async function settleCode(call) {
  let promise
  try {
    promise = call()
  } catch (e) {
    return { syncThrow: true, code: undefined, message: `threw synchronously: ${describeThrown(e)}` }
  }
  try {
    await promise
    return 'fulfilled'
  } catch (e) {
    return e
  }
}

describe('approval faults', { skip }, () => {
  test('a gate that hangs forever holds no lock: another process writes, this one reads', async () => {
    const dir = tmpDir('memento-hang-')
    const dbPath = path.join(dir, 'memory.db')
    try {
      const p = new MemoryProvider({ dbPath, gate: () => new Promise(() => {}), budgets: LIMITS })
      let settled = false
      const hung = p.add({ track: 'user', scope: 'workspace', text: 'never approved [hang@0]' }, W)
      hung.then(
        () => (settled = true),
        () => (settled = true),
      )
      const [run] = await runTogether(WRITER, [
        { dbPath, seed: SEED, procId: 'h', mode: 'ops', ops: 40, limits: LIMITS, denyRate: 0, waitFor: 'go' },
      ])
      assertProtocolFailures([run])
      const landed = run.results.filter((r) => r.ok && r.added).length
      assert.ok(landed > 0, 'the other process wrote')
      assert.deepEqual(violations(p, { limits: LIMITS, replayLayers: true }), [], 'reads work and the store is consistent')
      assert.equal(settled, false, 'the hung write is still pending')
      assert.ok(!fullAudit(p).some((r) => r.text?.includes('[hang@0]')), 'no row for a write still waiting for approval')
      p.close()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a gate that resolves after close, or closes the provider itself: coded error, nothing written', async () => {
    const dir = tmpDir('memento-close-')
    try {
      for (const answer of ['allowed-once', 'rejected']) {
        const dbPath = path.join(dir, `late-${answer}.db`)
        let release
        const p = new MemoryProvider({ dbPath, gate: () => new Promise((r) => (release = r)) })
        const pending = p.add({ track: 'user', scope: 'workspace', text: 'late answer' }, W)
        p.close()
        release(answer)
        const err = await settleCode(() => pending)
        assert.equal(err.code, 'STORE_CORRUPT', `resolved ${answer} after close: ${err.message ?? err}`)
        assert.match(err.message, /closed/)
        const q = new MemoryProvider({ dbPath, gate: deny })
        assert.equal(q.listEntries().length, 0)
        assert.equal(fullAudit(q).length, 0)
        q.close()
      }
      for (const sync of [true, false]) {
        const dbPath = path.join(dir, `self-close-${sync}.db`)
        let p
        const gate = sync ? () => (p.close(), 'allowed-once') : async () => (p.close(), 'allowed-once')
        p = new MemoryProvider({ dbPath, gate })
        const err = await settleCode(() => p.add({ track: 'user', scope: 'workspace', text: 'closing gate' }, W))
        assert.equal(err.code, 'STORE_CORRUPT', String(err.message ?? err))
        const q = new MemoryProvider({ dbPath, gate: deny })
        assert.equal(q.listEntries().length, 0)
        q.close()
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a re-entrant gate (nested writes and reads inside the approval) keeps the store coherent', async () => {
    const dir = tmpDir('memento-reentrant-')
    try {
      let p
      const seen = []
      const gate = async (payload) => {
        seen.push(p.listEntries().length, p.query({}, { countRecall: false }).total, p.budgets().length)
        if (payload.text === 'outer [o@0]') await p.add({ track: 'user', scope: 'workspace', text: 'inner [i@0]' }, W)
        if (payload.action === 'replace') {
          // The approved target vanishes while its approval is pending (removed re-entrantly).
          await p.remove({ track: 'user', scope: 'workspace', match: '[victim@0]' }, W)
        }
        return 'allowed-once'
      }
      p = new MemoryProvider({ dbPath: path.join(dir, 'memory.db'), gate, budgets: LIMITS })
      await p.add({ track: 'user', scope: 'workspace', text: 'outer [o@0]' }, W)
      assert.deepEqual(
        p
          .listEntries()
          .map((e) => e.text)
          .sort(),
        ['inner [i@0]', 'outer [o@0]'],
      )
      await p.add({ track: 'user', scope: 'workspace', text: 'soon gone [victim@0]' }, W)
      const err = await settleCode(() =>
        p.replace({ track: 'user', scope: 'workspace', match: '[victim@0]', text: 'replacement [r@0]' }, W),
      )
      assert.equal(err.code, 'ENTRY_NOT_FOUND', 'the replace re-finds its approved id and finds it gone')
      assert.ok(!p.listEntries().some((e) => e.text.includes('[r@0]') || e.text.includes('[victim@0]')))
      assert.deepEqual(violations(p, { limits: LIMITS, replayLayers: true }), [])
      assert.ok(seen.length > 0)
      p.close()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a gate that throws or rejects with a non-Error is a denial with its row', async () => {
    const dir = tmpDir('memento-nonerror-')
    const trap = () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap: get')
          },
          ownKeys: () => {
            throw new Error('trap: ownKeys')
          },
          getPrototypeOf: () => {
            throw new Error('trap: proto')
          },
        },
      )
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    }
    const values = {
      string: () => 'no',
      number: () => 42,
      undefined: () => undefined,
      null: () => null,
      symbol: () => Symbol('no'),
      bigint: () => 7n,
      proxy: trap,
      revokedProxy: revoked,
      throwingMessage: () => ({
        get message() {
          throw new Error('message getter')
        },
      }),
      plainObject: () => ({ reason: 'no' }),
    }
    const failures = []
    try {
      let n = 0
      for (const [name, make] of Object.entries(values)) {
        const gates = {
          [`throws ${name}`]: () => {
            throw make()
          },
          [`rejects with ${name}`]: () => Promise.reject(make()),
          [`resolves to ${name}`]: async () => make(),
        }
        for (const [label, gate] of Object.entries(gates)) {
          const p = new MemoryProvider({ dbPath: path.join(dir, `g${n++}.db`), gate })
          const text = `gate ${label}`
          const err = await settleCode(() => p.add({ track: 'user', scope: 'workspace', text }, W))
          const rows = fullAudit(p)
          const problems = []
          if (err === 'fulfilled') problems.push('write was accepted')
          else if (err?.syncThrow) problems.push(`${err.message} instead of rejecting with WRITE_DENIED`)
          else if (err?.code !== 'WRITE_DENIED') problems.push(`rejected with ${describeThrown(err)} instead of WRITE_DENIED`)
          if (p.listEntries().length !== 0) problems.push('an entry landed')
          if (!(rows.length === 1 && rows[0].action === 'add-denied' && rows[0].text === text))
            problems.push(`audit rows ${JSON.stringify(rows.map((r) => r.action))} instead of one add-denied`)
          if (problems.length) failures.push(`gate ${label}: ${problems.join('; ')}`)
          p.close()
        }
      }
      assert.deepEqual(failures, [], 'every gate fault is a WRITE_DENIED with one add-denied row')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('an auditVia that throws or returns a hostile value never changes the outcome the caller sees', async () => {
    const dir = tmpDir('memento-label-')
    const labels = {
      throws: () => {
        throw new Error('label boom')
      },
      throwsString: () => {
        throw 'label string'
      },
      proxy: () =>
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('label trap')
            },
            ownKeys: () => {
              throw new Error('label keys')
            },
          },
        ),
      throwingGetter: () => ({
        get x() {
          throw new Error('label getter')
        },
      }),
      number: () => 5,
    }
    const failures = []
    try {
      let n = 0
      for (const [name, auditVia] of Object.entries(labels)) {
        for (const answer of ['allowed-once', 'rejected']) {
          const p = new MemoryProvider({ dbPath: path.join(dir, `l${n++}.db`), gate: async () => answer, auditVia })
          const result = await settleCode(() => p.add({ track: 'user', scope: 'workspace', text: `label ${name}` }, W))
          const landed = p.listEntries().length
          const want = answer === 'allowed-once' ? 'fulfilled' : 'WRITE_DENIED'
          const got = result === 'fulfilled' ? 'fulfilled' : (result?.code ?? describeThrown(result))
          if (got !== want) failures.push(`auditVia ${name}, gate ${answer}: caller got ${got} (entries in store: ${landed})`)
          if (landed !== (answer === 'allowed-once' ? 1 : 0)) failures.push(`auditVia ${name}, gate ${answer}: ${landed} entries`)
          const row = fullAudit(p).at(-1)
          if (row?.action !== (answer === 'allowed-once' ? 'add' : 'add-denied'))
            failures.push(`auditVia ${name}, gate ${answer}: last row ${row?.action}`)
          p.close()
        }
      }
      assert.deepEqual(failures, [], 'a label only labels')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('3000 concurrent pending writes of every kind, then all denied: one denied row each, nothing else', async (t) => {
    const dir = tmpDir('memento-pending-')
    try {
      const releases = []
      let mode = 'allow'
      const gate = () => (mode === 'allow' ? 'allowed-once' : new Promise((r) => releases.push(r)))
      const p = new MemoryProvider({
        dbPath: path.join(dir, 'memory.db'),
        gate,
        budgets: { user: { userGlobal: 1e6, workspace: 1e6 }, agent: { userGlobal: 1e6, workspace: 1e6 } },
      })
      await p.add({ track: 'user', scope: 'workspace', text: 'anchor one [a1@0]' }, W)
      await p.add({ track: 'user', scope: 'workspace', text: 'anchor two [a2@0]' }, W)
      const before = p.listEntries()
      const baseRows = fullAudit(p).length
      mode = 'hold'
      const kinds = ['add', 'replace', 'remove', 'consolidate', 'seed']
      const pending = []
      for (let i = 0; i < 3000; i++) {
        const kind = kinds[i % kinds.length]
        if (kind === 'add') pending.push(p.add({ track: 'user', scope: 'workspace', text: `pending ${i}` }, W))
        if (kind === 'replace') pending.push(p.replace({ track: 'user', scope: 'workspace', match: '[a1@0]', text: `replaced ${i}` }, W))
        if (kind === 'remove') pending.push(p.remove({ track: 'user', scope: 'workspace', match: '[a2@0]' }, W))
        if (kind === 'consolidate')
          pending.push(p.consolidate({ track: 'user', scope: 'workspace', matches: ['[a1@0]', '[a2@0]'], text: `merged ${i}` }, W))
        if (kind === 'seed') pending.push(p.seed([{ track: 'agent', scope: 'user-global', text: `seeded ${i}` }], W))
      }
      // Wait until every gate call is pending.
      for (let spins = 0; releases.length < 3000 && spins < 1000; spins++) await new Promise((r) => setImmediate(r))
      assert.equal(releases.length, 3000, 'every write asked the gate')
      assert.equal(fullAudit(p).length, baseRows, 'nothing is recorded while approvals are pending')
      for (const release of releases) release('rejected')
      const results = await Promise.allSettled(pending)
      assert.ok(results.every((r) => r.status === 'rejected' && r.reason.code === 'WRITE_DENIED'))
      assert.deepEqual(p.listEntries(), before, 'entries unchanged')
      const rows = fullAudit(p).slice(baseRows)
      assert.equal(rows.length, 3000)
      for (const kind of kinds) assert.equal(rows.filter((r) => r.action === `${kind}-denied`).length, 600, kind)
      assert.ok(rows.every((r) => r.entryId === null))
      assert.deepEqual(violations(p), [])
      p.close()
      t.diagnostic('3000 concurrent pending approvals denied: 3000 denied rows, 0 entries changed')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
