#!/usr/bin/env node
// dsh-memento benchmark (issue 5): µs/op of every memory operation through the provider factory
// contract, next to a FLOOR — the same SQL work done by plain rusqlite (examples/floor/) — in
// the same run. See bench/README.md.
//
//   node bench/run.mjs [--quick] [--provider ./factory.mjs] [--json out.json]
//                      [--scales 10000,100000] [--audit-rows 1000000] [--iters 200]
//                      [--no-floor] [--keep]
//
// Each scale: a build worker seeds the store, a fresh measure worker measures the reads (so peak
// RSS is the provider's at that scale), the floor binary measures them on the same data, then the
// writes run in rounds, ours and the floor's alternating; nothing runs concurrently (2-core
// machine). Exit code 1 only for failed correctness checks, never timings.
import { spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { entryInput, plan as makePlan } from './workload.mjs'
import { currentPlatform } from '../lib/platform.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ROOT = path.resolve(HERE, '..')
const HIGH = 1e9
const HIGH_BUDGETS = { user: { userGlobal: HIGH, workspace: HIGH }, agent: { userGlobal: HIGH, workspace: HIGH } }

// ---------------------------------------------------------------------------------------------
// shared helpers

function parseArgs(argv) {
  const a = { quick: false, provider: null, json: null, scales: null, auditRows: null, iters: null, floor: true, keep: false, worker: null }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      if (arg.includes('=')) return arg.slice(arg.indexOf('=') + 1)
      if (i + 1 >= argv.length) usage(`${arg} needs a value`)
      return argv[++i]
    }
    const name = arg.split('=')[0]
    if (name === '--quick') a.quick = true
    else if (name === '--provider') a.provider = value()
    else if (name === '--json') a.json = value()
    else if (name === '--scales') a.scales = value().split(',').map(Number)
    else if (name === '--audit-rows') a.auditRows = Number(value())
    else if (name === '--iters') a.iters = Number(value())
    else if (name === '--no-floor') a.floor = false
    else if (name === '--keep') a.keep = true
    else if (name === '--worker') a.worker = value()
    else if (name === '--help' || name === '-h') usage(null)
    else usage(`unknown argument ${JSON.stringify(arg)}`)
  }
  return a
}

function usage(problem) {
  const text = 'usage: node bench/run.mjs [--quick] [--provider ./factory.mjs] [--json out.json] [--scales 10000,100000] [--audit-rows N] [--iters N] [--no-floor] [--keep]'
  if (problem) {
    process.stderr.write(`${problem}\n${text}\n`)
    process.exit(2)
  }
  process.stdout.write(`${text}\n`)
  process.exit(0)
}

function stats(samples) {
  if (samples.length === 0) return null
  const v = [...samples].sort((x, y) => x - y)
  const at = (p) => v[Math.round((v.length - 1) * p)]
  return { median: at(0.5), p95: at(0.95), mean: v.reduce((s, x) => s + x, 0) / v.length, n: v.length }
}

function fileBytes(p) {
  let total = 0
  for (const s of ['', '-wal']) {
    try {
      total += statSync(p + s).size
    } catch {}
  }
  return total
}

const log = (...m) => process.stderr.write(`${m.join(' ')}\n`)

// ---------------------------------------------------------------------------------------------
// worker: one provider, one scale

function writeCtx(w) {
  return { agent: { session: { id: w.sessionId, header: { cwd: w.cwd, agentPreset: w.agentPreset } } } }
}

async function worker(cfgPath) {
  const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'))
  const mod = await import(pathToFileURL(cfg.provider).href)
  const makeProvider = mod.makeProvider ?? mod.default
  const gate = async () => 'allowed-once'
  const open = () => makeProvider({ dbPath: cfg.dbPath, budgets: HIGH_BUDGETS, gate })
  const plan = makePlan(cfg.n, cfg.iters)
  const ops = {}
  const info = {}
  const checks = []
  const rss = {}
  const check = (ok, what) => {
    if (!ok) checks.push(what)
  }
  const maxMs = cfg.maxMsPerOp

  /** Time fn(item) for each item (after `warm` untimed calls), stopping after maxMs (≥5 samples). */
  // An operation that throws is recorded as {error} (and a failed check) and the run goes on.
  const failed = (name, into, e) => {
    into[name] = { error: `${e?.code ? `${e.code}: ` : ''}${e?.message ?? e}` }
    checks.push(`${name} threw: ${into[name].error}`)
    log(`  ${name}: ${into[name].error}`)
    return into[name]
  }
  async function measure(name, items, fn, { warm = 3, into = ops } = {}) {
    try {
      for (let i = 0; i < Math.min(warm, items.length); i++) await fn(items[i], true)
      const samples = []
      const start = performance.now()
      for (let i = warm < items.length ? warm : 0; i < items.length; i++) {
        const t0 = process.hrtime.bigint()
        await fn(items[i], false)
        samples.push(Number(process.hrtime.bigint() - t0) / 1000)
        if (samples.length >= 5 && performance.now() - start > maxMs) break
      }
      into[name] = stats(samples)
      return into[name]
    } catch (e) {
      return failed(name, into, e)
    }
  }
  /** Same, for synchronous fns (no await between samples). */
  function measureSync(name, items, fn, { warm = 3, into = ops } = {}) {
    try {
      for (let i = 0; i < Math.min(warm, items.length); i++) fn(items[i], true)
      const samples = []
      const start = performance.now()
      for (let i = warm < items.length ? warm : 0; i < items.length; i++) {
        const t0 = process.hrtime.bigint()
        fn(items[i], false)
        samples.push(Number(process.hrtime.bigint() - t0) / 1000)
        if (samples.length >= 5 && performance.now() - start > maxMs) break
      }
      into[name] = stats(samples)
      return into[name]
    } catch (e) {
      return failed(name, into, e)
    }
  }

  // -- build the store: seed batches of 1,000 (budgets 10^9), in its own process (phase
  // `build`), so that the measuring process's peak RSS is not the seeding's garbage.
  if (cfg.phase === 'build') {
    const p = open()
    const buildStart = performance.now()
    const buildWrite = writeCtx({ sessionId: 'bench-build', cwd: '/work/repos/bench-build', agentPreset: '' })
    for (let i = 0; i < cfg.n; i += 1000) {
      const inputs = []
      for (let j = i; j < Math.min(cfg.n, i + 1000); j++) inputs.push(entryInput(j))
      const r = await p.seed(inputs, buildWrite)
      check(r.added === inputs.length, `build: seed added ${r.added} of ${inputs.length}`)
    }
    p.close()
    const buildSeconds = (performance.now() - buildStart) / 1000
    log(`  built ${cfg.n} entries in ${buildSeconds.toFixed(1)} s`)
    writeFileSync(cfg.out, JSON.stringify({ buildSeconds, buildPeakRssMB: process.resourceUsage().maxRSS / 1024, checks }))
    return
  }
  // -- one round of the writes (the parent alternates these with the floor's rounds)
  if (cfg.phase === 'writes') {
    const p = open()
    const mine = (items) => items.filter((_, k) => k % cfg.rounds === cfg.round)
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
        samples[name].push(Number(process.hrtime.bigint() - t0) / 1000)
      }
    }
    // Warm-up, untimed (a fresh process's first writes run cold: caches, the read model's
    // structures, JIT): load the read model, add the round's share of the warm-up adds, then
    // `warmCycles` add → replace → remove cycles in a workspace of their own. The floor's round
    // warms up with the same writes.
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
    writeFileSync(cfg.out, JSON.stringify({ samples, errors: ops, checks, peakMB: process.resourceUsage().maxRSS / 1024 }))
    return
  }

  // -- a large audit table (rows appended by the floor binary with plain SQL)
  if (cfg.phase === 'filled') {
    const openItems = Array.from({ length: cfg.openIters }, () => null)
    const fill = spawnSync(cfg.floorBin, ['fill-audit', '--db', cfg.dbPath, '--to', String(cfg.auditRows)], { encoding: 'utf8' })
    if (fill.status !== 0) {
      checks.push(`fill-audit failed: ${fill.stderr}`)
    } else {
      info.auditFill = JSON.parse(fill.stdout)
      measureSync('openFilled', openItems, () => open().close(), { warm: 2, into: info })
      let p = open()
      measureSync('auditList.filled', Array.from({ length: cfg.auditIters }, () => 100), (k) => {
        const rows = p.auditList(k)
        check(rows.length === 100, 'auditList: 100 rows')
      })
      p.close()
      // Information: a write that also prunes expired audit rows (none have expired here), at
      // the filled audit table — retention must not make writes scan the ledger.
      p = makeProvider({ dbPath: cfg.dbPath, budgets: HIGH_BUDGETS, gate, auditRetentionDays: 30 })
      await measure('add.retention.filled', plan.adds.slice(0, 100), async (a) => {
        await p.add({ ...a.input, text: `${a.input.text} (retained)` }, writeCtx(a.write))
      }, { warm: 0, into: info })
      p.close()
      info.fileBytesFilled = fileBytes(cfg.dbPath)
    }
    writeFileSync(cfg.out, JSON.stringify({ ops, info, checks, peakMB: process.resourceUsage().maxRSS / 1024 }))
    return
  }

  const p = open()
  rss.afterOpenMB = process.resourceUsage().maxRSS / 1024

  const s = plan.session
  const limit = 20
  const visible = (e) => (e.agentKey === '' || e.agentKey === s.agentKey) && (e.scope === 'user-global' || e.workspaceKey === s.workspaceKey)

  // -- budgets
  const budgetItems = Array.from({ length: cfg.budgetIters }, () => s.workspaceKey)
  measureSync('budgets', budgetItems, (ws) => p.budgets({ workspaceKey: ws }))
  measureSync('budgets.noWs', budgetItems, () => p.budgets(), { into: info })
  {
    const rows = p.budgets({ workspaceKey: s.workspaceKey })
    check(Array.isArray(rows) && rows.length === 4, 'budgets: 4 rows')
  }

  // -- queries
  measureSync('query.rare', plan.rare, (needle, warm) => {
    const r = p.query({ text: needle, limit })
    if (!warm) check(r.total >= 1 && r.entries.every((e) => e.text.toLowerCase().includes(needle)), `query.rare ${needle}: total ${r.total}`)
  })
  measureSync('query.common', plan.rare, () => {
    const r = p.query({ text: plan.common, limit })
    check(r.entries.length === limit && r.truncated, 'query.common: a full page, truncated')
  })
  measureSync('query.cjk2', plan.cjk, (needle, warm) => {
    const r = p.query({ text: needle, limit })
    if (!warm) check(r.total >= 1 && r.entries.every((e) => e.text.includes(needle)), `query.cjk2 ${needle}: total ${r.total}`)
  })
  measureSync('query.session', plan.rare, () => {
    const r = p.query({ text: plan.common, limit }, { agentKey: s.agentKey, workspaceKey: s.workspaceKey })
    check(r.total >= 1 && r.entries.every(visible), 'query.session: visible entries only')
  })
  measureSync('query.rare.noRecall', plan.rare, (needle) => p.query({ text: needle, limit }, { countRecall: false }), { into: info })
  measureSync('query.sessionId', plan.rare, (needle) => p.query({ text: needle, limit }, { sessionId: 'bench-recall', agentKey: s.agentKey, workspaceKey: s.workspaceKey }), { into: info })

  // -- audit list at the build's audit size (≈ n + n/1000 rows). Its newest 100 rows are filler
  // rows like those of the filled table below, so the two listings differ in the table's size
  // only, not in what they list.
  if (cfg.floorBin) {
    const fill = spawnSync(cfg.floorBin, ['fill-audit', '--db', cfg.dbPath, '--add', '100'], { encoding: 'utf8' })
    if (fill.status !== 0) checks.push(`fill-audit --add failed: ${fill.stderr}`)
  }
  const auditItems = Array.from({ length: cfg.auditIters }, () => 100)
  measureSync('auditList.base', auditItems, (k) => {
    const rows = p.auditList(k)
    check(rows.length === 100, 'auditList: 100 rows')
  })

  // -- snapshot: the provider's own if it has one, else the plugin's path
  rss.beforeSnapshotMB = process.resourceUsage().maxRSS / 1024
  const { renderSnapshot, isVisible } = await import(pathToFileURL(path.join(ROOT, 'lib/plugin/snapshot.mjs')).href)
  let snapshotChars = 0
  const snapshotItems = Array.from({ length: cfg.iters }, () => s)
  if (typeof p.snapshot === 'function') {
    info.snapshotPath = 'provider.snapshot({agentKey, workspaceKey})'
    const js = renderSnapshot(p.listEntries({ agentKey: s.agentKey, workspaceKey: s.workspaceKey }), p.budgets({ workspaceKey: s.workspaceKey }), [], 'en')
    check(String(p.snapshot(s)) === js, 'snapshot: the provider renders what the plugin renders from listEntries + budgets')
    measureSync('snapshot', snapshotItems, (keys) => {
      snapshotChars = String(p.snapshot(keys)).length
    })
  } else {
    // The plugin's own path (lib/plugin/snapshot.mjs): the session's list, its budgets, render.
    // The isVisible filter is a no-op for a provider that honours the keys, and keeps the text
    // right for one that ignores them (then the row measures the whole list: said in the note).
    let ignoresKeys = false
    try {
      ignoresKeys = p.listEntries({ agentKey: s.agentKey, workspaceKey: s.workspaceKey }).some((e) => !isVisible(e, s))
    } catch {}
    info.snapshotPath = `plugin path: listEntries({agentKey, workspaceKey}) + budgets({workspaceKey}) + renderSnapshot (the provider has no snapshot method)${ignoresKeys ? '; THE FACTORY/PROVIDER IGNORES listEntries keys (returns every entry): measured with the whole list, filtered in JS' : ''}`
    measureSync('snapshot', snapshotItems, (keys) => {
      const entries = p.listEntries({ agentKey: keys.agentKey, workspaceKey: keys.workspaceKey }).filter((e) => isVisible(e, keys))
      snapshotChars = renderSnapshot(entries, p.budgets({ workspaceKey: keys.workspaceKey }), [], 'en').length
    })
  }
  info.snapshotChars = snapshotChars
  // Information: the same snapshot from the visible set alone (one query, no recall counting).
  measureSync('snapshot.viaQuery', snapshotItems, (keys) => {
    const r = p.query({ limit: 1000 }, { agentKey: keys.agentKey, workspaceKey: keys.workspaceKey, countRecall: false })
    const text = renderSnapshot(r.entries, p.budgets({ workspaceKey: keys.workspaceKey }), [], 'en')
    check(!snapshotChars || text.length === snapshotChars, 'snapshot via query renders the same text')
  }, { into: info })
  rss.afterSnapshotMB = process.resourceUsage().maxRSS / 1024

  // -- open (warm): a new provider on the closed file
  p.close()
  const openItems = Array.from({ length: cfg.openIters }, () => null)
  measureSync('open', openItems, () => {
    open().close()
  }, { warm: 2 })
  // Time to the first answer: open + one query + close (a provider may load lazily).
  measureSync('open.firstQuery', openItems.map((_, i) => plan.rare[i % plan.rare.length]), (needle) => {
    const q = open()
    q.query({ text: needle, limit }, { countRecall: false })
    q.close()
  }, { warm: 2 })
  // (the timed span includes close(); measured alone below as information)
  {
    const samples = []
    for (let i = 0; i < cfg.openIters; i++) {
      const t0 = process.hrtime.bigint()
      const q = open()
      samples.push(Number(process.hrtime.bigint() - t0) / 1000)
      q.close()
    }
    info['open.constructorOnly'] = stats(samples)
  }

  rss.peakMB = process.resourceUsage().maxRSS / 1024
  writeFileSync(cfg.out, JSON.stringify({ n: cfg.n, ops, info, rss, checks }, null, 2))
}

// ---------------------------------------------------------------------------------------------
// parent: data files, workers, floor, table

const REF = { add: 980, replace: 13400, remove: 6000, consolidate: 18000, budgets: 48000, 'auditList.base': 180, open: 500 }

function targetOf(op, n, isBig, res) {
  const floor = res.floor?.ops?.[op]?.median
  const ours = res.ours.ops[op]?.median
  const writes = ['add', 'replace', 'remove', 'consolidate', 'seed.batch100', 'seed.entry']
  if (writes.includes(op)) {
    const ref = REF[op]
    const text = ref ? `≤2× floor, ≤${Math.round(ref / 5)}` : '≤2× floor'
    if (isBig) return { text: `(${text} @10k)`, meets: null }
    if (ours == null) return { text, meets: false }
    const ratio = res.floor?.ops?.[op]?.ratio ?? (floor == null ? null : ours / floor)
    const okFloor = ratio == null ? null : ratio <= 2
    const okRef = ref ? ours <= ref / 5 : true
    return { text, meets: okFloor === null ? okRef && null : okFloor && okRef }
  }
  if (op.startsWith('query.')) {
    const lim = isBig ? 900 : 300
    return { text: `≤${lim} µs`, meets: ours == null ? false : ours <= lim }
  }
  if (op === 'budgets') return { text: '≤20 µs', meets: ours == null ? false : ours <= 20 }
  if (op === 'open') return isBig ? { text: '≤3000 µs', meets: ours == null ? false : ours <= 3000 } : { text: '(≤3000 µs @100k)', meets: null }
  if (op === 'open.firstQuery') return { text: '(time to first answer)', meets: null }
  if (op === 'snapshot') return { text: '≤200 µs', meets: ours == null ? false : ours <= 200 }
  if (op === 'auditList.base') return { text: `(ref ${REF['auditList.base']} µs)`, meets: null }
  if (op === 'auditList.filled') {
    const base = res.ours.ops['auditList.base']?.median
    return { text: 'flat: ≤1.5× base+20', meets: ours == null || base == null ? false : ours <= 1.5 * base + 20 }
  }
  return { text: '', meets: null }
}

const OPS = [
  ['open', 'open (warm)'],
  ['open.firstQuery', 'open + first query'],
  ['add', 'add'],
  ['seed.batch100', 'seed (batch of 100)'],
  ['seed.entry', 'seed (per entry)'],
  ['query.rare', 'query rare 3+ char'],
  ['query.common', 'query common, limit 20'],
  ['query.cjk2', 'query rare 2-char CJK'],
  ['query.session', 'query with session keys'],
  ['replace', 'replace'],
  ['remove', 'remove'],
  ['consolidate', 'consolidate (2 targets)'],
  ['budgets', 'budgets({workspaceKey})'],
  ['auditList.base', 'auditList(100) @base'],
  ['auditList.filled', 'auditList(100) @filled'],
  ['snapshot', 'snapshot render'],
]

const fmt = (x) => (x == null ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))

function table(results) {
  const lines = []
  const head = ['op', 'ours µs (median/p95)', 'floor µs', 'ratio', 'mutation + audit only µs (ratio)', 'target', 'meets?']
  for (const res of results) {
    const n = res.n
    const isBig = res.big
    lines.push('')
    const auditBase = res.ours.info?.auditFill ? ` · audit base ≈${res.floor?.info?.auditRowsBase ?? '?'} rows, filled ${res.ours.info.auditFill.auditRows} rows` : ''
    lines.push(`## ${n.toLocaleString('en-US')} entries${auditBase}`)
    const rows = [head]
    for (const [op, label] of OPS) {
      const raw = res.ours.ops[op]
      if (!raw && !res.floor?.ops?.[op]) continue
      const o = raw?.error ? null : raw
      const fo = res.floor?.ops
      const f = op === 'open.firstQuery' && fo?.open && fo?.['query.rare'] ? { median: fo.open.median + fo['query.rare'].median, plan: 'open + query rare' } : fo?.[op]
      // Writes: the median of the rounds' paired ratios (see bench/README.md); reads: one pair.
      const ratio = o && f ? (f.ratio ?? o.median / f.median) : null
      const t = targetOf(op, n, isBig, res)
      const plan = f?.plan ? ` (${f.plan})` : ''
      const shown = raw?.error ? `ERROR (${raw.error.slice(0, 40)})` : o ? `${fmt(o.median)} / ${fmt(o.p95)}` : 'n/a'
      const m = res.floor?.info?.[`${op}.minimal`]
      const minimal = m ? `${fmt(m.median)}${o ? ` (${(m.ratio ?? o.median / m.median).toFixed(1)}×)` : ''}` : ''
      rows.push([label, shown, f ? `${fmt(f.median)}${plan}` : '—', ratio == null ? '—' : `${ratio.toFixed(1)}×`, minimal, t.text, t.meets == null ? '' : t.meets ? 'yes' : 'NO'])
    }
    const r = res.ours.rss
    const rssMB = r.peakMB
    rows.push(['peak RSS (MB)', `${rssMB.toFixed(0)} (${r.beforeSnapshotMB.toFixed(0)} before snapshot; build ${r.buildPeakMB.toFixed(0)})`, '', '', '', isBig ? '≤100 MB' : '', isBig ? (rssMB <= 100 ? 'yes' : 'NO') : ''])
    rows.push(['store file (MB)', (res.ours.info.fileBytes / 1e6).toFixed(1), res.floor?.info?.fileBytes != null ? (res.floor.info.fileBytes / 1e6).toFixed(1) : '—', '', '', '', ''])
    rows.push(['build (s)', res.ours.info.buildSeconds.toFixed(1), res.floor?.info?.buildSeconds != null ? res.floor.info.buildSeconds.toFixed(1) : '—', '', '', '', ''])
    const widths = head.map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)))
    for (const [i, r] of rows.entries()) {
      lines.push(`| ${r.map((cell, c) => String(cell).padEnd(widths[c])).join(' | ')} |`)
      if (i === 0) lines.push(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
    }
    const extra = []
    const inf = res.ours.info
    if (inf['query.rare.noRecall']) extra.push(`query rare with countRecall:false ${fmt(inf['query.rare.noRecall'].median)} µs`)
    if (inf['query.sessionId']) extra.push(`query with sessionId (writes a recalled row) ${fmt(inf['query.sessionId'].median)} µs`)
    if (inf['budgets.noWs']) extra.push(`budgets() without workspaceKey ${fmt(inf['budgets.noWs'].median)} µs`)
    if (inf['open.constructorOnly']) extra.push(`open without close ${fmt(inf['open.constructorOnly'].median)} µs`)
    if (inf.openFilled) extra.push(`open with the filled audit table ${fmt(inf.openFilled.median)} µs`)
    if (inf['add.retention.filled']) extra.push(`add with auditRetentionDays 30 at the filled audit table (prunes the expired head of the ledger in the same transaction) ${fmt(inf['add.retention.filled'].median)} µs`)
    if (res.floor?.info?.['query.common.pageOnly']) extra.push(`floor common-word page alone, without the exact total: ${fmt(res.floor.info['query.common.pageOnly'].median)} µs`)
    const fi = res.floor?.info
    if (fi?.['add.noFts']) extra.push(`floor without the provider's FTS triggers: add ${fmt(fi['add.noFts'].median)} µs, seed ${fmt(fi['seed.batch100.noFts'].median)} µs per 100 (the index maintenance is the rest of the write floor)`)
    if (inf['snapshot.viaQuery']?.median != null) extra.push(`snapshot from query({limit: 1000}, {agentKey, workspaceKey, countRecall: false}) + budgets + renderSnapshot ${fmt(inf['snapshot.viaQuery'].median)} µs`)
    if (inf.snapshotPath) extra.push(`snapshot = ${inf.snapshotPath}; ${inf.snapshotChars} chars`)
    if (inf.auditFill) extra.push(`audit rows appended by floor fill-audit (plain SQL) in ${inf.auditFill.seconds.toFixed(1)} s; by protocol queries with sessionId it would take ≈ ${inf['query.sessionId'] ? ((inf['query.sessionId'].median * inf.auditFill.auditRows) / 1e6).toFixed(0) : '?'} s`)
    if (res.floor?.info?.fts) extra.push(`floor FTS: ${res.floor.info.fts}`)
    for (const e of extra) lines.push(`- ${e}`)
    if (res.ours.checks.length) lines.push(`- CHECKS FAILED: ${[...new Set(res.ours.checks)].slice(0, 10).join('; ')}`)
  }
  return lines.join('\n')
}

async function writeDataset(file, n) {
  const out = createWriteStream(file)
  for (let i = 0; i < n; i++) {
    if (!out.write(JSON.stringify(entryInput(i)) + '\n')) await new Promise((r) => out.once('drain', r))
  }
  await new Promise((r) => out.end(r))
}

async function makeTemplate(file) {
  // An empty store made by OUR provider: the floor runs on exactly its schema.
  const { makeProvider } = await import(pathToFileURL(path.join(ROOT, 'conformance/provider.mjs')).href)
  makeProvider({ dbPath: file, gate: async () => 'allowed-once' }).close()
}

function buildFloor() {
  // Built for the host triple explicitly, like `napi build --platform --release`, so that it
  // shares target/<triple>/release with the addon build (no second compile of SQLite).
  const t0 = performance.now()
  const host = /host: (\S+)/.exec(spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout ?? '')?.[1]
  const targetArgs = host ? ['--target', host] : []
  const r = spawnSync('cargo', ['build', '--release', ...targetArgs, '--example', 'floor', '--message-format=json-render-diagnostics'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 })
  let bin = null
  for (const line of (r.stdout ?? '').split('\n')) {
    if (!line.startsWith('{')) continue
    const m = JSON.parse(line)
    if (m.reason === 'compiler-artifact' && m.target?.name === 'floor' && m.executable) bin = m.executable
  }
  if (r.status !== 0) {
    // The crate may be mid-edit: the floor does not use it, so a previous build still measures.
    const previous = path.join(process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target'), host ?? '', 'release/examples/floor')
    if (!existsSync(previous)) throw new Error('cargo build --release --example floor failed')
    log(`floor: cargo build failed; using the previous build ${previous}`)
    bin = previous
  }
  if (!bin || !existsSync(bin)) throw new Error('cargo built no floor executable')
  return { bin, seconds: (performance.now() - t0) / 1000 }
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  if (args.worker) return worker(args.worker)
  const t0 = performance.now()
  const quick = args.quick
  const scales = args.scales ?? (quick ? [1000, 5000] : [10000, 100000])
  const auditRows = args.auditRows ?? (quick ? 20000 : 1000000)
  const iters = args.iters ?? (quick ? 20 : 200)
  const rounds = quick ? 2 : 10
  const warmCycles = quick ? 5 : 20
  const provider = path.resolve(args.provider ?? path.join(ROOT, 'conformance/provider.mjs'))
  const addon = path.join(ROOT, `memento.${currentPlatform()}.node`)
  if (!existsSync(addon) && !process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    // The floor's schema template (and the default provider) need the addon.
    log(`bench: no native addon (${path.basename(addon)}): run \`npm run build\` first (a release build: the bench measures what ships)`)
    process.exit(2)
  }
  const addonMB = existsSync(addon) ? statSync(addon).size / 1e6 : 0
  const debugWarning = addonMB > 10 ? ` · WARNING: the addon is ${addonMB.toFixed(0)} MB, a debug build? (npm run build makes the release one)` : ''
  if (debugWarning) log(debugWarning.slice(3))
  const dir = mkdtempSync(path.join(tmpdir(), 'dsh-memento-bench-'))
  if (!args.keep) {
    // Remove the temp stores however the run ends (error, Ctrl-C, closed pipe).
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGPIPE']) process.on(sig, () => process.exit(130))
  }
  log(`bench: scales ${scales.join(', ')} · audit ${auditRows} rows · ${iters} iterations · provider ${path.relative(process.cwd(), provider) || provider} · dir ${dir}`)
  let floor = null
  if (args.floor) {
    floor = buildFloor()
    log(`floor: ${path.relative(ROOT, floor.bin)} (cargo ${floor.seconds.toFixed(1)} s)`)
  }
  const template = path.join(dir, 'template.db')
  if (floor) await makeTemplate(template)
  const results = []
  for (const [k, n] of scales.entries()) {
    const sub = path.join(dir, String(n))
    mkdirSync(sub, { recursive: true })
    const withAudit = k === 0 && auditRows > 0
    const cfg = {
      provider,
      n,
      iters,
      dbPath: path.join(sub, 'memory.db'),
      budgetIters: quick ? 500 : 5000,
      auditIters: quick ? 100 : 500,
      openIters: quick ? 10 : 30,
      maxMsPerOp: quick ? 3000 : 15000,
      auditRows: withAudit ? auditRows : 0,
      floorBin: floor?.bin ?? null,
    }
    log(`[${n}] provider…`)
    const w0 = performance.now()
    const runWorker = (phase, extra = {}) => {
      const tag = extra.round == null ? phase : `${phase}-${extra.round}`
      const file = path.join(sub, `cfg-${tag}.json`)
      const out = path.join(sub, `ours-${tag}.json`)
      writeFileSync(file, JSON.stringify({ ...cfg, ...extra, phase, out }))
      const w = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--worker', file], { stdio: ['ignore', 'inherit', 'inherit'] })
      if (w.status !== 0) throw new Error(`${tag} worker for ${n} failed (exit ${w.status})`)
      return JSON.parse(readFileSync(out, 'utf8'))
    }
    const runFloor = (...argv) => {
      const r = spawnSync(floor.bin, argv, { encoding: 'utf8', maxBuffer: 1 << 26 })
      if (r.status !== 0) throw new Error(`floor ${argv[0]} failed: ${r.stderr}`)
      return JSON.parse(r.stdout)
    }
    const built = runWorker('build')
    const ours = runWorker('measure')
    ours.info.buildSeconds = built.buildSeconds
    ours.rss.buildPeakMB = built.buildPeakRssMB
    ours.checks.push(...built.checks)
    let floorRes = null
    const dataset = path.join(sub, 'dataset.jsonl')
    const planFile = path.join(sub, 'plan.json')
    const floorDb = path.join(sub, 'floor.db')
    if (floor) {
      log(`[${n}] floor…`)
      await writeDataset(dataset, n)
      writeFileSync(planFile, JSON.stringify(makePlan(n, iters)))
      const f0 = performance.now()
      floorRes = runFloor('bench', '--template', template, '--dataset', dataset, '--plan', planFile, '--dir', sub, '--open-iters', String(cfg.openIters), '--max-ms', String(cfg.maxMsPerOp))
      floorRes.seconds = (performance.now() - f0) / 1000
    }
    // The writes, in rounds: ours, then the floor, on the round's share of the plan, so that the
    // two sides of each ratio are measured at the same moments (this VM's speed drifts by tens of
    // percent over a minute).
    log(`[${n}] writes, ${rounds} rounds…`)
    const samples = { ours: {}, same: {}, minimal: {} }
    const paired = { same: {}, minimal: {} }
    const add = (into, op, xs) => (into[op] ??= []).push(...xs)
    for (let round = 0; round < rounds; round++) {
      const w = runWorker('writes', { round, rounds, warmCycles })
      for (const [op, xs] of Object.entries(w.samples)) add(samples.ours, op, xs)
      Object.assign(ours.ops, w.errors)
      ours.checks.push(...w.checks)
      ours.rss.writesPeakMB = Math.max(ours.rss.writesPeakMB ?? 0, w.peakMB)
      if (!floor) continue
      const f = runFloor('writes', '--db', floorDb, '--dataset', dataset, '--plan', planFile, '--ids', path.join(sub, 'floor-ids.json'), '--round', String(round), '--rounds', String(rounds), '--warm', String(warmCycles))
      // Pool the samples, and keep this round's ratio per write (same moment, same store state).
      for (const [op, x] of Object.entries(f)) {
        const o = stats(w.samples[op] ?? [])?.median
        for (const kind of ['same', 'minimal']) {
          add(samples[kind], op, x[kind])
          const m = stats(x[kind])?.median
          if (o && m) add(paired[kind], op, [o / m])
        }
      }
      const line = Object.keys(f).map((op) => `${op} ${fmt(stats(w.samples[op] ?? [])?.median)}/${fmt(stats(f[op].same)?.median)}`)
      log(`  round ${round + 1}/${rounds} (ours/floor µs): ${line.join(', ')}`)
    }
    const per100 = (st) => st && { median: st.median / 100, p95: st.p95 / 100, mean: st.mean / 100, n: st.n, ratio: st.ratio }
    for (const [op, xs] of Object.entries(samples.ours)) if (!ours.ops[op]?.error) ours.ops[op] = stats(xs)
    ours.ops['seed.entry'] = per100(ours.ops['seed.batch100'])
    ours.info.fileBytes = fileBytes(cfg.dbPath)
    if (floorRes) {
      for (const op of Object.keys(samples.same)) {
        floorRes.ops[op] = { ...stats(samples.same[op]), ratio: stats(paired.same[op] ?? [])?.median }
        floorRes.info[`${op}.minimal`] = { ...stats(samples.minimal[op]), ratio: stats(paired.minimal[op] ?? [])?.median }
      }
      floorRes.ops['seed.entry'] = per100(floorRes.ops['seed.batch100'])
      floorRes.info['seed.entry.minimal'] = per100(floorRes.info['seed.batch100.minimal'])
    }
    if (withAudit && floor) {
      log(`[${n}] audit table of ${auditRows} rows…`)
      const filled = runWorker('filled')
      Object.assign(ours.ops, filled.ops)
      Object.assign(ours.info, filled.info)
      ours.checks.push(...filled.checks)
      ours.rss.filledPeakMB = filled.peakMB
      const f = runFloor('filled', '--db', floorDb, '--to', String(auditRows))
      floorRes.ops['auditList.filled'] = f['auditList.filled']
      floorRes.info.auditFillSeconds = f.auditFillSeconds
      floorRes.info.auditRowsFilled = f.auditRowsFilled
    }
    if (floor) Object.assign(floorRes.info, runFloor('no-fts', '--db', floorDb, '--plan', planFile))
    ours.rss.peakMB = Math.max(ours.rss.peakMB, ours.rss.writesPeakMB ?? 0, ours.rss.filledPeakMB ?? 0)
    ours.seconds = (performance.now() - w0) / 1000
    results.push({ n, big: n >= 100000, ours, floor: floorRes })
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm', 'floor.db', 'floor.db-wal', 'floor.db-shm', 'dataset.jsonl']) if (!args.keep) rmSync(path.join(sub, f), { force: true })
  }
  const seconds = (performance.now() - t0) / 1000
  const text = table(results)
  process.stdout.write(`# dsh-memento bench — ${new Date().toISOString()} · node ${process.version} · ${quick ? 'QUICK scale (targets are for the full scale)' : 'full scale'} · ${seconds.toFixed(0)} s${debugWarning}\n${text}\n`)
  if (args.json) {
    const out = { date: new Date().toISOString(), node: process.version, quick, scales, auditRows, iters, provider, seconds, results: results.map((r) => ({ ...r, targets: Object.fromEntries(OPS.map(([op]) => [op, targetOf(op, r.n, r.big, r)])) })) }
    writeFileSync(args.json, JSON.stringify(out, null, 2))
    log(`wrote ${args.json}`)
  }
  const failed = results.flatMap((r) => r.ours.checks)
  if (failed.length) {
    log(`correctness checks failed: ${failed.length}`)
    process.exitCode = 1
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`)
  process.exit(1)
})
