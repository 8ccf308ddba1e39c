// One bench worker: a fresh Node process that opens the provider through the factory contract
// (`makeProvider({dbPath, budgets, gate})`) and runs one phase on one store, then writes its
// figures as JSON to `cfg.out`. The parent (run.mjs) spawns it; see bench/README.md.
//
//   node bench/worker.mjs <cfg.json>
//
// Phases: `build` (seed the store), `measure` (the reads), `writes` (one round of the writes),
// `filled` (a large audit table), `first` (one fresh process's open, snapshot and first query).
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { HIGH_BUDGETS, fileBytes, log, peakMB, since, stats, writeCtx } from './common.mjs'
import { SHAPES } from './workload.mjs'

const LIMIT = 20

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const importStart = performance.now()
const mod = await import(pathToFileURL(cfg.provider).href)
const importMs = performance.now() - importStart
const makeProvider = mod.makeProvider ?? mod.default
const gate = async () => 'allowed-once'
const open = (extra = {}) => makeProvider({ dbPath: cfg.dbPath, budgets: HIGH_BUDGETS, gate, ...extra })
const shape = SHAPES[cfg.shape]
const plan = shape.plan(cfg.n, cfg.iters)
const ops = {}
const info = {}
const checks = []
// A paired run's share (`cfg.round` of `cfg.rounds`, `cfg.only`: the groups of reads it times)
// and its raw samples, which the parent pools over the rounds.
const raw = {}
const mine = (items) => (cfg.rounds ? items.filter((_, k) => k % cfg.rounds === cfg.round) : items)
const wants = (group) => !cfg.only || cfg.only.includes(group)
const check = (ok, what) => {
  if (!ok) checks.push(what)
}

/** An operation that throws is recorded as {error} (and a failed check), and the run goes on. */
function failed(name, into, e) {
  into[name] = { error: `${e?.code ? `${e.code}: ` : ''}${e?.message ?? e}` }
  checks.push(`${name} threw: ${into[name].error}`)
  log(`  ${name}: ${into[name].error}`)
  return into[name]
}

/**
 * Time fn(item) for each item after `warm` untimed calls, stopping after cfg.maxMsPerOp (with
 * ≥ 5 samples). A synchronous fn is never awaited, so nothing but the call is timed.
 */
async function measure(name, items, fn, { warm = 3, into = ops } = {}) {
  try {
    const warming = performance.now()
    for (let i = 0; i < Math.min(warm, items.length) && performance.now() - warming < cfg.maxMsPerOp; i++) {
      const v = fn(items[i], true)
      if (v?.then) await v
    }
    const samples = []
    const start = performance.now()
    for (let i = warm < items.length ? warm : 0; i < items.length; i++) {
      const t0 = process.hrtime.bigint()
      const v = fn(items[i], false)
      if (v?.then) await v
      samples.push(since(t0))
      if (samples.length >= 5 && performance.now() - start > cfg.maxMsPerOp) break
    }
    raw[name] = samples
    into[name] = stats(samples)
    return into[name]
  } catch (e) {
    return failed(name, into, e)
  }
}

const times = (k, item = null) => Array.from({ length: k }, () => item)
const done = (figures) => writeFileSync(cfg.out, JSON.stringify({ ...figures, checks, peakMB: peakMB(), ...(cfg.rounds && { raw }) }))

/** Seed the store in batches of 1,000, in a process of its own (its garbage is not measured). */
async function build() {
  const p = open()
  const t0 = performance.now()
  const write = writeCtx({ sessionId: 'bench-build', cwd: '/work/repos/bench-build', agentPreset: '' })
  for (let i = 0; i < cfg.n; i += 1000) {
    const inputs = []
    for (let j = i; j < Math.min(cfg.n, i + 1000); j++) inputs.push(shape.entryInput(j))
    const r = await p.seed(inputs, write)
    check(r.added === inputs.length, `build: seed added ${r.added} of ${inputs.length}`)
  }
  p.close()
  const buildSeconds = (performance.now() - t0) / 1000
  log(`  built ${cfg.n} entries in ${buildSeconds.toFixed(1)} s`)
  done({ buildSeconds })
}

/**
 * The time to the first answer of a fresh process, as a session starts: open, the snapshot it is
 * shown (the provider's own, else the plugin's path), then one rare query (default options).
 */
async function first() {
  const needle = plan.rare[cfg.sample % plan.rare.length]
  const { renderSnapshot, isVisible } = await import('./snapshot-path.mjs')
  const s = plan.session
  const t0 = process.hrtime.bigint()
  const p = open()
  const shown =
    typeof p.snapshot === 'function'
      ? String(p.snapshot(s))
      : renderSnapshot(
          p.listEntries({ agentKey: s.agentKey, workspaceKey: s.workspaceKey }).filter((e) => isVisible(e, s)),
          p.budgets({ workspaceKey: s.workspaceKey }),
          [],
          'en',
        )
  const r = p.query({ text: needle, limit: LIMIT })
  const us = since(t0)
  check(shown.length > 0, 'first: a snapshot')
  check(r.total >= 1 && r.entries.every((e) => e.text.toLowerCase().includes(needle)), `first query ${needle}: total ${r.total}`)
  p.close()
  done({ us, importMs })
}

/** One round of the writes (the parent alternates these with the floor's rounds). */
async function writes() {
  const p = open()
  const samples = {}
  const collect = async (name, items, fn) => {
    samples[name] = []
    for (const item of items) {
      const t0 = process.hrtime.bigint()
      try {
        await fn(item)
      } catch (e) {
        failed(name, ops, e)
        break
      }
      samples[name].push(since(t0))
    }
  }
  // Warm-up, untimed (a fresh process's first writes run cold: caches, a read model, JIT): a
  // query, the round's share of the warm-up adds, then `warmCycles` add → replace → remove
  // cycles in a workspace of their own. The floor's round warms up with the same writes.
  p.query({ text: plan.rare[0], limit: 1 }, { countRecall: false })
  for (const a of mine(plan.warmAdds)) await p.add(a.input, writeCtx(a.write))
  const warm = writeCtx({ sessionId: `bench-warm-${cfg.round}`, cwd: '/work/repos/bench-warm', agentPreset: 'coder' })
  const where = { track: 'agent', scope: 'workspace' }
  for (let c = 0; c < cfg.warmCycles; c++) {
    const token = `zzwarm${cfg.round}x${c}zz`
    await p.add({ ...where, text: `warm-up entry ${token}` }, warm)
    await p.replace({ ...where, match: token, text: `warm-up entry ${token}` }, warm)
    await p.remove({ ...where, match: token }, warm)
  }
  await collect('add', mine(plan.adds), async (a) => {
    const r = await p.add(a.input, writeCtx(a.write))
    check(r?.entry?.text === a.input.text, 'add: entry returned')
  })
  await collect('seed.batch100', mine(plan.seedBatches), async (b) => {
    const r = await p.seed(b.inputs, writeCtx(b.write))
    check(r.added === 100, 'seed: 100 added')
  })
  await collect('replace', mine(plan.replaces), async (r) => {
    const out = await p.replace(r.input, writeCtx(r.write))
    check(out?.entry?.text === r.input.text, 'replace: entry returned')
  })
  await collect('remove', mine(plan.removes), async (r) => {
    const out = await p.remove(r.input, writeCtx(r.write))
    check(out?.entry?.text?.toLowerCase().includes(r.input.match), 'remove: entry returned')
  })
  await collect('consolidate', mine(plan.consolidates), async (c) => {
    const out = await p.consolidate(c.input, writeCtx(c.write))
    check(out?.removed?.length === 2, 'consolidate: 2 removed')
  })
  p.close()
  done({ samples, errors: ops })
}

/** A large audit table (rows appended by the floor binary with plain SQL), then auditList. */
async function filled() {
  const fill = spawnSync(cfg.floorBin, ['fill-audit', '--db', cfg.dbPath, '--to', String(cfg.auditRows)], { encoding: 'utf8' })
  if (fill.status !== 0) {
    checks.push(`fill-audit failed: ${fill.stderr}`)
    return done({ ops, info })
  }
  info.auditFill = JSON.parse(fill.stdout)
  await measure('openFilled', times(cfg.openIters), () => open().close(), { warm: 2, into: info })
  let p = open()
  await measure('auditList.filled', times(cfg.auditIters, 100), (k) => {
    check(p.auditList(k).length === 100, 'auditList: 100 rows')
  })
  p.close()
  // Information: a write that also prunes expired audit rows (none have expired here), at the
  // filled audit table — retention must not make writes scan the ledger.
  p = open({ auditRetentionDays: 30 })
  await measure(
    'add.retention.filled',
    plan.adds.slice(0, 100),
    async (a) => {
      await p.add({ ...a.input, text: `${a.input.text} (retained)` }, writeCtx(a.write))
    },
    { warm: 0, into: info },
  )
  p.close()
  info.fileBytesFilled = fileBytes(cfg.dbPath)
  done({ ops, info })
}

/**
 * The read operations on the built store (a fresh process: its peak RSS is the provider's), in
 * groups: `budgets`, `queries`, `auditList` (and the snapshot), `open`; all of them unless the
 * parent pairs this side with another (`cfg.only`).
 */
async function reads() {
  const rss = {}
  const p = open()
  rss.afterOpenMB = peakMB()
  const s = plan.session

  if (wants('budgets')) await budgets(p, s)
  if (wants('queries')) await queries(p, s)
  if (wants('auditList')) await audit(p, s, rss)
  p.close()
  if (wants('open')) await opens()
  rss.peakMB = peakMB()
  done({ n: cfg.n, ops, info, rss })
}

async function budgets(p, s) {
  const items = mine(times(cfg.budgetIters, s.workspaceKey))
  await measure('budgets', items, (ws) => p.budgets({ workspaceKey: ws }))
  await measure('budgets.noWs', items, () => p.budgets(), { into: info })
  const rows = p.budgets({ workspaceKey: s.workspaceKey })
  check(Array.isArray(rows) && rows.length === 4, 'budgets: 4 rows')
}

async function queries(p, s) {
  const visible = (e) =>
    (e.agentKey === '' || e.agentKey === s.agentKey) && (e.scope === 'user-global' || e.workspaceKey === s.workspaceKey)
  const [rare, cjk] = [mine(plan.rare), mine(plan.cjk)]
  // The floor times a needle's cheapest plan after its other plans have read the same rows: the
  // per-needle queries first read every needle once, untimed, here too.
  await measure(
    'query.rare',
    rare,
    (needle, warm) => {
      const r = p.query({ text: needle, limit: LIMIT })
      if (!warm)
        check(r.total >= 1 && r.entries.every((e) => e.text.toLowerCase().includes(needle)), `query.rare ${needle}: total ${r.total}`)
    },
    { warm: rare.length },
  )
  await measure('query.common', rare, () => {
    const r = p.query({ text: plan.common, limit: LIMIT })
    check(r.entries.length === LIMIT && r.truncated, 'query.common: a full page, truncated')
  })
  await measure(
    'query.cjk2',
    cjk,
    (needle, warm) => {
      const r = p.query({ text: needle, limit: LIMIT })
      if (!warm) check(r.total >= 1 && r.entries.every((e) => e.text.includes(needle)), `query.cjk2 ${needle}: total ${r.total}`)
    },
    { warm: cjk.length },
  )
  await measure('query.session', rare, () => {
    const r = p.query({ text: plan.common, limit: LIMIT }, { agentKey: s.agentKey, workspaceKey: s.workspaceKey })
    check(r.total >= 1 && r.entries.every(visible), 'query.session: visible entries only')
  })
  await measure('query.rare.noRecall', rare, (needle) => p.query({ text: needle, limit: LIMIT }, { countRecall: false }), { into: info })
  await measure(
    'query.sessionId',
    rare,
    (needle) => p.query({ text: needle, limit: LIMIT }, { sessionId: 'bench-recall', agentKey: s.agentKey, workspaceKey: s.workspaceKey }),
    { into: info },
  )
}

async function audit(p, s, rss) {
  // The audit list at the build's audit size (≈ n + n/1000 rows). Its newest 100 rows are filler
  // rows like those of the filled table, so the two listings differ in the table's size only.
  if (cfg.floorBin && !cfg.round) {
    const fill = spawnSync(cfg.floorBin, ['fill-audit', '--db', cfg.dbPath, '--add', '100'], { encoding: 'utf8' })
    if (fill.status !== 0) checks.push(`fill-audit --add failed: ${fill.stderr}`)
  }
  await measure('auditList.base', mine(times(cfg.auditIters, 100)), (k) => {
    check(p.auditList(k).length === 100, 'auditList: 100 rows')
  })

  rss.beforeSnapshotMB = peakMB()
  if (cfg.snapshot) await snapshot(p, s)
  rss.afterSnapshotMB = peakMB()
}

/** Open (warm): a new provider on the closed file. */
async function opens() {
  const openItems = mine(times(cfg.openIters))
  await measure('open', openItems, () => open().close(), { warm: 2 })
  // Time to the first answer within this process: open + one query + close (a provider may load
  // lazily). The `first` phase measures it in fresh processes.
  await measure(
    'open.firstQuery',
    openItems.map((_, i) => plan.rare[i % plan.rare.length]),
    (needle) => {
      const q = open()
      q.query({ text: needle, limit: LIMIT }, { countRecall: false })
      q.close()
    },
    { warm: 2 },
  )
  const samples = []
  for (let i = 0; i < openItems.length; i++) {
    const t0 = process.hrtime.bigint()
    const q = open()
    samples.push(since(t0))
    q.close()
  }
  raw['open.constructorOnly'] = samples
  info['open.constructorOnly'] = stats(samples)
}

/** The snapshot: the provider's own if it has one, else the plugin's path. */
async function snapshot(p, s) {
  const { renderSnapshot, isVisible } = await import('./snapshot-path.mjs')
  let chars = 0
  const items = times(cfg.iters, s)
  if (typeof p.snapshot === 'function') {
    info.snapshotPath = 'provider.snapshot({agentKey, workspaceKey})'
    const js = renderSnapshot(
      p.listEntries({ agentKey: s.agentKey, workspaceKey: s.workspaceKey }),
      p.budgets({ workspaceKey: s.workspaceKey }),
      [],
      'en',
    )
    check(String(p.snapshot(s)) === js, 'snapshot: the provider renders what the plugin renders from listEntries + budgets')
    await measure('snapshot', items, (keys) => {
      chars = String(p.snapshot(keys)).length
    })
  } else {
    // The plugin's own path (lib/snapshot.mjs): the session's list, its budgets, render.
    // The isVisible filter is a no-op for a provider that honours the keys, and keeps the text
    // right for one that ignores them (then the row measures the whole list: said in the note).
    let ignoresKeys = false
    try {
      ignoresKeys = p.listEntries({ agentKey: s.agentKey, workspaceKey: s.workspaceKey }).some((e) => !isVisible(e, s))
    } catch {}
    info.snapshotPath = `plugin path: listEntries({agentKey, workspaceKey}) + budgets({workspaceKey}) + renderSnapshot (the provider has no snapshot method)${ignoresKeys ? '; THE FACTORY/PROVIDER IGNORES listEntries keys (returns every entry): measured with the whole list, filtered in JS' : ''}`
    await measure('snapshot', items, (keys) => {
      const entries = p.listEntries({ agentKey: keys.agentKey, workspaceKey: keys.workspaceKey }).filter((e) => isVisible(e, keys))
      chars = renderSnapshot(entries, p.budgets({ workspaceKey: keys.workspaceKey }), [], 'en').length
    })
  }
  info.snapshotChars = chars
  // Information: the same snapshot from the visible set alone (one query, no recall counting).
  await measure(
    'snapshot.viaQuery',
    items,
    (keys) => {
      const r = p.query({ limit: 1000 }, { agentKey: keys.agentKey, workspaceKey: keys.workspaceKey, countRecall: false })
      const text = renderSnapshot(r.entries, p.budgets({ workspaceKey: keys.workspaceKey }), [], 'en')
      check(!chars || text.length === chars, 'snapshot via query renders the same text')
    },
    { into: info },
  )
}

const PHASES = { build, first, writes, filled, measure: reads }
await PHASES[cfg.phase]()
