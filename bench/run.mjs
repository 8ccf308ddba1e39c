#!/usr/bin/env node
// dsh-memento benchmark: µs/op of every memory operation through the
// provider factory contract, next to a FLOOR — the same SQL work done by plain rusqlite
// (examples/floor/) — in the same run, and next to the JS plugin, measured in the same run too,
// in every shape. See bench/README.md.
//
//   node bench/run.mjs [--quick] [--provider ./factory.mjs] [--json out.json] [--results FILE|none]
//                      [--scales 10000,100000] [--large 10000] [--audit-rows 1000000]
//                      [--iters 200] [--no-floor] [--keep]
//
// Each store: a build worker seeds it, a fresh measure worker measures the reads (so peak RSS is
// the provider's at that size), fresh processes time the first query after open (large layers),
// the floor binary measures the reads on the same data, then the writes run in rounds, ours and
// the floor's alternating; the JS plugin's side runs beside ours, phase by phase and round by
// round (see `reads`); nothing runs concurrently (2-core machine). The workers are
// bench/worker.mjs, the tables bench/report.mjs. Exit code 1 only for failed correctness
// checks, never timings.
import { spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { fileBytes, fmt, log, stats } from './common.mjs'
import { shapeTable, verdicts } from './report.mjs'
import { SHAPES } from './workload.mjs'
import { currentPlatform } from '../lib/platform.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ROOT = path.resolve(HERE, '..')
const WORKER = path.join(HERE, 'worker.mjs')

function parseArgs(argv) {
  const a = {
    quick: false,
    provider: null,
    json: null,
    results: null,
    scales: null,
    large: null,
    auditRows: null,
    iters: null,
    floor: true,
    keep: false,
  }
  const sizes = (v) =>
    v
      .split(',')
      .filter((x) => x && x !== 'none')
      .map(Number)
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
    else if (name === '--results') a.results = value()
    else if (name === '--scales') a.scales = sizes(value())
    else if (name === '--large') a.large = Number(value())
    else if (name === '--audit-rows') a.auditRows = Number(value())
    else if (name === '--iters') a.iters = Number(value())
    else if (name === '--no-floor') a.floor = false
    else if (name === '--keep') a.keep = true
    else if (name === '--help' || name === '-h') usage(null)
    else usage(`unknown argument ${JSON.stringify(arg)}`)
  }
  return a
}

function usage(problem) {
  const text =
    'usage: node bench/run.mjs [--quick] [--provider ./factory.mjs] [--json out.json] [--results FILE|none] [--scales 10000,100000|none] [--large N|0] [--audit-rows N] [--iters N] [--no-floor] [--keep]'
  if (problem) {
    process.stderr.write(`${problem}\n${text}\n`)
    process.exit(2)
  }
  process.stdout.write(`${text}\n`)
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------
// the floor binary and its inputs

/** The store's entries as JSON lines, from the same generator the build worker seeds. */
async function writeDataset(file, n, shape) {
  const out = createWriteStream(file)
  for (let i = 0; i < n; i++) {
    if (!out.write(JSON.stringify(SHAPES[shape].entryInput(i)) + '\n')) await new Promise((r) => out.once('drain', r))
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
  const r = spawnSync('cargo', ['build', '--release', ...targetArgs, '--example', 'floor', '--message-format=json-render-diagnostics'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 26,
  })
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

// ---------------------------------------------------------------------------------------------
// one store: build, reads, first queries, floor, writes in rounds, the big audit table

/** For one store: a worker process of ours (phase + extra config), a floor subcommand. */
function runners(cfg, sub, js = null) {
  const runWorker = (phase, extra = {}) => {
    const name = [phase, extra.round ?? extra.sample].filter((x) => x != null).join('-')
    const file = path.join(sub, `cfg-${name}.json`)
    const out = path.join(sub, `ours-${name}.json`)
    writeFileSync(file, JSON.stringify({ ...cfg, ...extra, phase, out }))
    const env = js ? { ...process.env, MEMENTO_JS_PLUGIN: js.tree } : process.env
    const w = spawnSync(js?.node ?? process.execPath, [WORKER, file], { stdio: ['ignore', 'inherit', 'inherit'], env })
    if (w.status !== 0) throw new Error(`${name} worker for ${cfg.shape} ${cfg.n} failed (exit ${w.status})`)
    return JSON.parse(readFileSync(out, 'utf8'))
  }
  const runFloor = (...argv) => {
    const r = spawnSync(cfg.floorBin, argv, { encoding: 'utf8', maxBuffer: 1 << 26 })
    if (r.status !== 0) throw new Error(`floor ${argv[0]} failed: ${r.stderr}`)
    return JSON.parse(r.stdout)
  }
  return { runWorker, runFloor }
}

/**
 * The writes, in rounds: ours, then the floor, then the JS plugin (`js`: `{runWorker, side}`,
 * when measured beside us), on the round's share of the plan, so that the sides of each ratio
 * are measured at the same moments (this VM's speed drifts by tens of percent over a minute).
 * Folds the pooled samples into `ours.ops`, `floorRes` and `js.side` (each write's floor ratio
 * and JS ratio: the median of the rounds' ratios).
 */
function writeRounds({ runWorker, runFloor }, run, floorArgs, ours, floorRes, js) {
  const samples = { ours: {}, same: {}, minimal: {} }
  const paired = { same: {}, minimal: {} }
  const add = (into, op, xs) => (into[op] ??= []).push(...xs)
  const jsRaw = {}
  const jsRatios = {}
  /** One round of `side`'s writes through `worker`, its samples pooled into `into`. */
  const round1 = (worker, side, round, into) => {
    const w = worker('writes', { round, rounds: run.rounds, warmCycles: run.warmCycles })
    for (const [op, xs] of Object.entries(w.samples)) add(into, op, xs)
    Object.assign(side.ops, w.errors)
    side.checks.push(...w.checks)
    side.rss.writesPeakMB = Math.max(side.rss.writesPeakMB ?? 0, w.peakMB)
    return w
  }
  const medians = (bySample) => Object.fromEntries(Object.entries(bySample).map(([op, xs]) => [op, stats(xs)]))
  for (let round = 0; round < run.rounds; round++) {
    const mine = medians(round1(runWorker, ours, round, samples.ours).samples)
    if (floorRes) {
      const f = runFloor('writes', ...floorArgs, '--round', String(round), '--rounds', String(run.rounds), '--warm', String(run.warmCycles))
      // Pool the samples, and keep this round's ratio per write (same moment, same store state).
      for (const kind of ['same', 'minimal']) {
        const floorSamples = Object.fromEntries(Object.entries(f).map(([op, x]) => [op, x[kind]]))
        for (const [op, xs] of Object.entries(floorSamples)) add(samples[kind], op, xs)
        pairRatios(medians(floorSamples), mine, paired[kind])
      }
      const line = Object.keys(f).map((op) => `${op} ${fmt(mine[op]?.median)}/${fmt(stats(f[op].same)?.median)}`)
      log(`  round ${round + 1}/${run.rounds} (ours/floor µs): ${line.join(', ')}`)
    }
    if (js) pairRatios(mine, medians(round1(js.runWorker, js.side, round, jsRaw).samples), jsRatios)
  }
  const per100 = (st) => st && { median: st.median / 100, p95: st.p95 / 100, mean: st.mean / 100, n: st.n, ratio: st.ratio }
  for (const [op, xs] of Object.entries(samples.ours)) if (!ours.ops[op]?.error) ours.ops[op] = stats(xs)
  ours.ops['seed.entry'] = per100(ours.ops['seed.batch100'])
  if (js) {
    for (const [op, xs] of Object.entries(jsRaw))
      if (!js.side.ops[op]?.error) js.side.ops[op] = { ...stats(xs), ratio: stats(jsRatios[op] ?? [])?.median, ratios: jsRatios[op] }
    js.side.ops['seed.entry'] = per100(js.side.ops['seed.batch100'])
  }
  if (!floorRes) return
  for (const op of Object.keys(samples.same)) {
    floorRes.ops[op] = { ...stats(samples.same[op]), ratio: stats(paired.same[op] ?? [])?.median }
    floorRes.info[`${op}.minimal`] = { ...stats(samples.minimal[op]), ratio: stats(paired.minimal[op] ?? [])?.median }
  }
  floorRes.ops['seed.entry'] = per100(floorRes.ops['seed.batch100'])
  floorRes.info['seed.entry.minimal'] = per100(floorRes.info['seed.batch100.minimal'])
}

/**
 * Measures one store (`job`: {shape, n, auditRows, snapshot, firstSamples}) in `sub`: ours
 * through worker processes, the floor's through its binary. Returns {n, shape, big, ours, floor}.
 */
async function runStore(job, run) {
  const { shape, n } = job
  const { sub, floor, template } = run
  const tag = `[${shape} ${n}]`
  const cfg = {
    ...workerConfig(job, run, run.provider, sub),
    auditRows: job.auditRows,
    snapshot: job.snapshot,
    floorBin: floor?.bin ?? null,
  }
  const go = runners(cfg, sub)
  const { runWorker, runFloor } = go
  const js = jsPlugin(job, run)
  const t0 = performance.now()
  log(`${tag} provider${js?.go ? ', the JS plugin beside it' : ''}…`)
  const [ours, jsSide] = reads([runWorker, js?.go?.runWorker].filter(Boolean), job, tag, {
    rounds: run.readRounds,
    maxMsPerOp: cfg.maxMsPerOp,
  })
  let floorRes = null
  const plan = SHAPES[shape].plan(n, run.iters)
  const dataset = path.join(sub, 'dataset.jsonl')
  const planFile = path.join(sub, 'plan.json')
  const floorDb = path.join(sub, 'floor.db')
  if (floor) {
    log(`${tag} floor…`)
    await writeDataset(dataset, n, shape)
    writeFileSync(planFile, JSON.stringify(plan))
    floorRes = runFloor(
      'bench',
      '--template',
      template,
      '--dataset',
      dataset,
      '--plan',
      planFile,
      '--dir',
      sub,
      '--open-iters',
      String(cfg.openIters),
      '--max-ms',
      String(cfg.maxMsPerOp),
    )
    // The floor's first query after open, in fresh processes too (the folded index `bench` built).
    if (job.firstSamples)
      floorRes.ops.first = stats(
        Array.from(
          { length: job.firstSamples },
          (_, s) => runFloor('first', '--db', floorDb, '--needle', plan.rare[s % plan.rare.length]).us,
        ),
      )
  }
  log(`${tag} writes, ${run.rounds} rounds…`)
  const jsWrites = jsSide && { runWorker: js.go.runWorker, side: jsSide }
  writeRounds(
    go,
    run,
    ['--db', floorDb, '--dataset', dataset, '--plan', planFile, '--ids', path.join(sub, 'floor-ids.json')],
    ours,
    floorRes,
    jsWrites,
  )
  ours.info.fileBytes = fileBytes(cfg.dbPath)
  if (job.auditRows && floor) {
    log(`${tag} audit table of ${job.auditRows} rows…`)
    const filled = runWorker('filled')
    Object.assign(ours.ops, filled.ops)
    Object.assign(ours.info, filled.info)
    ours.checks.push(...filled.checks)
    ours.rss.filledPeakMB = filled.peakMB
    const f = runFloor('filled', '--db', floorDb, '--to', String(job.auditRows))
    floorRes.ops['auditList.filled'] = f['auditList.filled']
    floorRes.info.auditFillSeconds = f.auditFillSeconds
    floorRes.info.auditRowsFilled = f.auditRowsFilled
  }
  if (floor) Object.assign(floorRes.info, runFloor('no-fts', '--db', floorDb, '--plan', planFile))
  peaks(ours.rss)
  ours.seconds = (performance.now() - t0) / 1000
  const out = { n, shape, big: shape === 'workspaces' && n >= 100000, ours, floor: floorRes }
  if (js?.missing) out.js = { missing: js.missing }
  else if (js) out.js = { ...jsSide, node: js.node, rss: peaks(jsSide.rss), readRounds: run.readRounds }
  return out
}

/** What a worker of `provider` needs for `job`, its store in `sub`. */
function workerConfig(job, run, provider, sub) {
  const { quick } = run
  const [budgetIters, auditIters, openIters, maxMsPerOp] = quick ? [500, 100, 10, 3000] : [5000, 500, 30, 15000]
  return {
    provider,
    shape: job.shape,
    n: job.n,
    iters: run.iters,
    dbPath: path.join(sub, 'memory.db'),
    budgetIters,
    auditIters,
    openIters,
    maxMsPerOp,
    auditRows: 0,
    snapshot: false,
    floorBin: null,
  }
}

/** The groups of reads a paired measure worker times (bench/worker.mjs `reads`). */
const READ_GROUPS = ['budgets', 'queries', 'auditList', 'open']

/**
 * Build each side's store (ours, and the JS plugin's when it is measured beside it), then measure
 * its reads and first queries through its `runWorker`. One side: one measure process. Two: the
 * reads run in `rounds` rounds of one group at a time and the first queries sample by sample,
 * the two sides back to back, so that each ratio compares moments seconds apart (this VM's speed
 * drifts by tens of percent over a minute; bench/README.md). Each read's ratio (`ratio` on the
 * second side's op) is then the median of its rounds' ratios; the samples are pooled.
 */
function reads(runWorkers, job, tag, { rounds, maxMsPerOp }) {
  const sides = runWorkers.map((runWorker) => {
    const built = runWorker('build')
    const side = {
      n: job.n,
      ops: {},
      info: { buildSeconds: built.buildSeconds },
      rss: { buildPeakMB: built.peakMB, peakMB: 0 },
      checks: [...built.checks],
    }
    return { runWorker, side, raw: {}, ratios: {} }
  })
  const paired = sides.length > 1
  const parts = paired ? Array.from({ length: rounds }, (_, round) => READ_GROUPS.map((g) => ({ only: [g], round, rounds }))).flat() : [{}]
  for (const part of parts) {
    const outs = sides.map(({ runWorker }) => runWorker('measure', { ...part, maxMsPerOp: maxMsPerOp / (part.rounds ?? 1) }))
    outs.forEach((o, k) => {
      const { side, raw } = sides[k]
      for (const key of ['ops', 'info']) Object.assign(side[key], o[key])
      side.rss = { ...side.rss, ...o.rss, peakMB: Math.max(side.rss.peakMB, o.rss.peakMB) }
      side.checks.push(...o.checks)
      for (const [op, xs] of Object.entries(o.raw ?? {})) (raw[op] ??= []).push(...xs)
    })
    if (paired) pairRatios(outs[0].ops, outs[1].ops, sides[1].ratios)
  }
  if (paired) {
    for (const { side, raw, ratios } of sides) {
      for (const [op, xs] of Object.entries(raw)) side[op in side.ops ? 'ops' : 'info'][op] = stats(xs)
      for (const [op, rs] of Object.entries(ratios)) Object.assign(side.ops[op], { ratio: stats(rs).median, ratios: rs })
    }
  }
  if (job.firstSamples) {
    log(`${tag} first query after open, ${job.firstSamples} fresh processes…`)
    const firsts = sides.map(() => [])
    for (let sample = 0; sample < job.firstSamples; sample++)
      sides.forEach(({ runWorker }, k) => firsts[k].push(runWorker('first', { sample })))
    sides.forEach(({ side }, k) => {
      side.ops.first = stats(firsts[k].map((f) => f.us))
      side.info.firstImportMs = stats(firsts[k].map((f) => f.importMs)).median
      side.rss.firstPeakMB = Math.max(...firsts[k].map((f) => f.peakMB))
      for (const f of firsts[k]) side.checks.push(...f.checks)
    })
    if (paired) sides[1].side.ops.first.ratio = stats(firsts[1].map((f, i) => f.us / firsts[0][i].us)).median
  }
  return sides.map(({ side }) => side)
}

/** Adds `other[op].median / base[op].median` to `into[op]` for every op both sides timed. */
function pairRatios(base, other, into) {
  for (const [op, st] of Object.entries(other)) {
    const o = base[op]?.median
    if (o && st?.median) (into[op] ??= []).push(st.median / o)
  }
}

/** The run's peak RSS over every phase (`r`, completed). */
function peaks(r) {
  r.peakMB = Math.max(r.peakMB, r.writesPeakMB ?? 0, r.filledPeakMB ?? 0)
  r.runPeakMB = Math.max(r.peakMB, r.buildPeakMB, r.firstPeakMB ?? 0)
  return r
}

// ---------------------------------------------------------------------------------------------
// the JS plugin, side by side on the same shape

const JS_TREE = path.resolve(process.env.MEMENTO_JS_PLUGIN ?? path.join(ROOT, '..', 'shared', 'reference', 'js-dsh-memento-74cd54b'))

/** Where the run was measured: the date, the machine, the Nodes and the code, as the results file ends. */
function machine(provider) {
  const cpus = os.cpus()
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim()
  const js = findJsPlugin()
  return [
    '## Where this was measured',
    `- ${new Date().toISOString().slice(0, 10)}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()} (${os.arch()})`,
    `- ours: ${path.relative(ROOT, provider)} at commit ${commit || 'unknown'}, on Node ${process.version}`,
    `- the JS plugin: ${js.missing ? `not measured (${js.missing})` : `${path.basename(js.tree)} on Node ${js.version}`}`,
    '- reproduce: `npm run build && npm run bench` (docs/performance.md)',
  ].join('\n')
}

/** `{tree, node, version}` to run the JS plugin with (it needs Node >= 22.19), or `{missing}`. */
function findJsPlugin() {
  if (!existsSync(path.join(JS_TREE, 'lib', 'protocol.mjs'))) return { missing: `no JS plugin tree at ${JS_TREE} (set MEMENTO_JS_PLUGIN)` }
  const harness = path.join(process.env.DSH_HARNESS_DIR ?? '/tmp/dsh-harness', 'node', 'package', 'bin', 'node')
  for (const node of [process.env.MEMENTO_JS_NODE, harness, process.execPath].filter(Boolean)) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? ''
    const [major, minor] = version.slice(1).split('.').map(Number)
    if (major > 22 || (major === 22 && minor >= 19)) return { tree: JS_TREE, node, version }
  }
  return { missing: 'no Node >= 22.19 for its node:sqlite (set MEMENTO_JS_NODE, or run `. .ci/harness.sh`)' }
}

/** The JS plugin's workers, on its own copy of the shape: `{go, node}`, or `{missing}`. */
function jsPlugin(job, run) {
  const js = findJsPlugin()
  if (js.missing) {
    log(`[${job.shape} ${job.n}, JS plugin] not measured: ${js.missing}`)
    return { missing: js.missing }
  }
  const sub = `${run.sub}-js`
  mkdirSync(sub, { recursive: true })
  const cfg = workerConfig(job, run, path.join(HERE, 'js-plugin.mjs'), sub)
  return { go: runners(cfg, sub, js), node: js.version }
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const t0 = performance.now()
  const quick = args.quick
  const scales = args.scales ?? (quick ? [1000, 5000] : [10000, 100000])
  const large = args.large ?? (quick ? 4000 : 10000)
  const auditRows = args.auditRows ?? (quick ? 20000 : 1000000)
  const iters = args.iters ?? (quick ? 20 : 200)
  const provider = path.resolve(args.provider ?? path.join(ROOT, 'conformance/provider.mjs'))
  const addon = path.join(ROOT, `memento.${currentPlatform()}.node`)
  if (!existsSync(addon) && !process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    // The floor's schema template (and the default provider) need the addon.
    log(`bench: no native addon (${path.basename(addon)}): run \`npm run build\` first (a release build: the bench measures what ships)`)
    process.exit(2)
  }
  const addonMB = existsSync(addon) ? statSync(addon).size / 1e6 : 0
  const debugWarning =
    addonMB > 10 ? ` · WARNING: the addon is ${addonMB.toFixed(0)} MB, a debug build? (npm run build makes the release one)` : ''
  if (debugWarning) log(debugWarning.slice(3))
  const dir = mkdtempSync(path.join(tmpdir(), 'dsh-memento-bench-'))
  if (!args.keep) {
    // Remove the temp stores however the run ends (error, Ctrl-C, closed pipe).
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGPIPE']) process.on(sig, () => process.exit(130))
  }
  // The workspaces stores (the first one also gets the big audit table), then the large layers.
  const jobs = [
    ...scales.map((n, k) => ({ shape: 'workspaces', n, auditRows: k === 0 ? auditRows : 0, snapshot: true, firstSamples: quick ? 3 : 10 })),
    ...(large > 0 ? [{ shape: 'large-layers', n: large, auditRows: 0, snapshot: false, firstSamples: quick ? 3 : 10 }] : []),
  ]
  log(
    `bench: ${jobs.map((j) => `${j.shape} ${j.n}`).join(', ')} · audit ${auditRows} rows · ${iters} iterations · provider ${path.relative(process.cwd(), provider) || provider} · dir ${dir}`,
  )
  let floor = null
  if (args.floor) {
    floor = buildFloor()
    log(`floor: ${path.relative(ROOT, floor.bin)} (cargo ${floor.seconds.toFixed(1)} s)`)
  }
  const template = path.join(dir, 'template.db')
  if (floor) await makeTemplate(template)
  const run = { provider, floor, template, quick, iters, rounds: quick ? 2 : 10, readRounds: quick ? 2 : 4, warmCycles: quick ? 5 : 20 }
  const results = []
  for (const job of jobs) {
    const sub = path.join(dir, `${job.shape}-${job.n}`)
    mkdirSync(sub, { recursive: true })
    results.push(await runStore(job, { ...run, sub }))
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm', 'floor.db', 'floor.db-wal', 'floor.db-shm', 'dataset.jsonl'])
      if (!args.keep) rmSync(path.join(sub, f), { force: true })
  }
  // What similar-write hints cost an add, in a fresh process of its own.
  const hintsOut = path.join(dir, 'hints.json')
  const hints = spawnSync(process.execPath, [path.join(HERE, 'hints.mjs'), ...(quick ? ['--quick'] : []), '--out', hintsOut], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // What history and undo cost, in a fresh process of its own.
  const undoOut = path.join(dir, 'undo.json')
  const undo = spawnSync(process.execPath, [path.join(HERE, 'undo.mjs'), ...(quick ? ['--quick'] : []), '--out', undoOut], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const seconds = (performance.now() - t0) / 1000
  const text = [
    ...results.map(shapeTable),
    hints.status === 0 ? hints.stdout : '\n(similar-write hints bench failed: see above)\n',
    undo.status === 0 ? undo.stdout : '\n(undo bench failed: see above)\n',
  ].join('\n')
  const report = `# dsh-memento bench — ${new Date().toISOString()} · node ${process.version} · ${quick ? 'QUICK scale (targets and goals are for the full scale)' : 'full scale'} · ${seconds.toFixed(0)} s${debugWarning}\n${text}\n`
  process.stdout.write(report)
  // A full run on this machine is the results file the docs show; a quick one checks, and keeps nothing.
  const resultsFile = args.results ?? (quick ? 'none' : path.join(HERE, 'results.md'))
  if (resultsFile !== 'none') {
    writeFileSync(resultsFile, `# Results of \`npm run bench\`\n\n${report.replace(/^# /, '')}\n${machine(provider)}\n`)
    log(`wrote ${path.relative(process.cwd(), resultsFile)}`)
  }
  if (args.json) {
    const hinted = existsSync(hintsOut) ? JSON.parse(readFileSync(hintsOut, 'utf8')) : null
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      quick,
      jobs,
      auditRows,
      iters,
      provider,
      seconds,
      results: results.map((r) => ({ ...r, goals: verdicts(r) })),
      hints: hinted,
      undo: existsSync(undoOut) ? JSON.parse(readFileSync(undoOut, 'utf8')) : null,
    }
    writeFileSync(args.json, JSON.stringify(out, null, 2))
    log(`wrote ${args.json}`)
  }
  const failed = [...results.flatMap((r) => r.ours.checks), ...(undo.status === 0 ? [] : ['the undo bench'])]
  if (failed.length) {
    log(`correctness checks failed: ${failed.length}`)
    process.exitCode = 1
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`)
  process.exit(1)
})
