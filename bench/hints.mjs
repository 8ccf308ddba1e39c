// What similar-write hints cost a write: `add` with hints and without them, on two
// copies of one store in the same process, alternating call by call (a machine's speed drifts
// over a run; alternating puts both sides under the same drift), on a 100-entry layer and on
// a 10,000-entry layer with its budget raised; then `seed` per entry on copies of the large
// layer. One provider opens with `similarHints: false`, the other with the default. run.mjs
// spawns this in a fresh process and prints its table; alone:
//
//   node bench/hints.mjs [--quick] [--out result.json]
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MemoryProvider } from '../index.mjs'
import { HIGH_BUDGETS, fmt, log, since, stats } from './common.mjs'

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null
const WS = '/work/repos/hints-bench'
const write = (id) => ({ agent: { session: { id, header: { cwd: WS } } } })

// Real memory texts: the labelled corpus the scorer is measured on (tests/similar/), EN, ZH and
// JA. The layers are its stored texts (the large one repeats them with a reference each); the
// adds are its new texts — reworded duplicates, updates, paraphrases, look-alikes, unrelated
// facts — as a model adds them.
const CORPUS = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'tests', 'similar')
const corpus = (file) =>
  readFileSync(path.join(CORPUS, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
const pairs = corpus('pairs.txt')
  .map((l) => l.split(' | '))
  .map(([, , news, ...stored]) => ({ news, stored: stored.join(' | ') }))
const stored = [
  ...new Set([
    ...corpus('layers.txt')
      .filter((l) => !l.startsWith('##'))
      .map((l) => l.slice(l.indexOf('| ') + 2)),
    ...pairs.map((p) => p.stored),
  ]),
]
const fact = (i) => (i < stored.length ? stored[i] : `${stored[i % stored.length]} (ref ${i})`)
const newText = (k) => pairs[(k * 7) % pairs.length].news

const entry = (text) => ({ track: 'agent', scope: 'workspace', text })

async function build(dbPath, n) {
  const p = new MemoryProvider({ dbPath, gate: async () => 'allowed-once', budgets: HIGH_BUDGETS, similarHints: false })
  for (let i = 0; i < n; i += 1000)
    await p.seed(
      Array.from({ length: Math.min(1000, n - i) }, (_, j) => entry(fact(i + j))),
      write('hints-build'),
    )
  p.close()
}

/** `add` with and without hints, alternating; each add is removed again (untimed), so the layer stays at `n`. */
async function adds(dbPath, n, iters) {
  let hinted = 0
  const gate = async (payload) => {
    if (payload.similar?.length) hinted++
    return 'allowed-once'
  }
  // Two copies of the store, one a side: a connection whose file another one just wrote drops
  // its page cache, which no single writer (the plugin) pays.
  const copy = (side) => (copyFileSync(dbPath, `${dbPath}.${side}.db`), `${dbPath}.${side}.db`)
  const on = new MemoryProvider({ dbPath: copy('on'), gate, budgets: HIGH_BUDGETS })
  const off = new MemoryProvider({ dbPath: copy('off'), gate, budgets: HIGH_BUDGETS, similarHints: false })
  const samples = { on: [], off: [] }
  const warm = 20
  for (let k = 0; k < warm + iters; k++) {
    const text = newText(k)
    for (const [side, p] of k % 2
      ? [
          ['on', on],
          ['off', off],
        ]
      : [
          ['off', off],
          ['on', on],
        ]) {
      const tag = `[hb-${k}-${side}]`
      const t0 = process.hrtime.bigint()
      await p.add(entry(`${text} ${tag}`), write('hints-bench'))
      if (k >= warm) samples[side].push(since(t0))
      await p.remove({ track: 'agent', scope: 'workspace', match: tag }, write('hints-bench'))
    }
  }
  on.close()
  off.close()
  const [a, b] = [stats(samples.on), stats(samples.off)]
  return { n, iters, on: a, off: b, ratio: a.median / b.median, hinted, hintedOf: warm + iters }
}

/** `seed` per entry into copies of the large layer, with and without hints, alternating by round. */
async function seeds(dbPath, n, rounds, batch) {
  const copy = (side) => {
    const file = `${dbPath}.seed-${side}.db`
    copyFileSync(dbPath, file)
    return new MemoryProvider({ dbPath: file, gate: async () => 'allowed-once', budgets: HIGH_BUDGETS, similarHints: side === 'on' })
  }
  const ps = { on: copy('on'), off: copy('off') }
  const perEntry = { on: [], off: [] }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? ['on', 'off'] : ['off', 'on']) {
      const inputs = Array.from({ length: batch }, (_, j) => entry(`${newText(r * batch + j)} [s${r}-${j}]`))
      const t0 = process.hrtime.bigint()
      await ps[side].seed(inputs, write('hints-seed'))
      perEntry[side].push(since(t0) / batch)
    }
  }
  ps.on.close()
  ps.off.close()
  const [a, b] = [stats(perEntry.on), stats(perEntry.off)]
  return { batch, rounds, on: a, off: b, ratio: a.median / b.median }
}

const dir = mkdtempSync(path.join(tmpdir(), 'dsh-memento-hints-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const t0 = performance.now()
const result = { quick, layers: [] }
for (const [n, iters] of [
  [100, quick ? 100 : 600],
  [10000, quick ? 40 : 300],
]) {
  const db = path.join(dir, `layer-${n}.db`)
  await build(db, n)
  log(`hints: ${n}-entry layer built; timing ${iters} adds a side`)
  const r = await adds(db, n, iters)
  if (n === 10000) r.seed = await seeds(db, n, quick ? 2 : 6, quick ? 100 : 250)
  result.layers.push(r)
}
result.seconds = (performance.now() - t0) / 1000

const [small, large] = result.layers
const goals = [{ what: 'add on the 100-entry layer: hints on / off', value: small.ratio, text: '≤ 1.2×', meets: small.ratio <= 1.2 }]
result.goals = goals
const cell = (s) => `${fmt(s.median)} / ${fmt(s.p95)}`
const lines = [
  '',
  `## similar-write hints: add with and without hints, alternating call by call on one store · ${result.seconds.toFixed(0)} s`,
  '| layer | add, hints off µs (median/p95) | add, hints on µs | on / off | adds whose approval named an entry | goal | met? |',
  '|---|---|---|---|---|---|---|',
  ...result.layers.map(
    (r, i) =>
      `| ${r.n.toLocaleString('en-US')} entries | ${cell(r.off)} | ${cell(r.on)} | ${r.ratio.toFixed(2)}× | ${r.hinted} of ${r.hintedOf} | ${goals[i] ? `${goals[i].text} | ${goals[i].meets ? 'yes' : 'NO'}` : '(past the default budget: see add in the large-layers table) |'} |`,
  ),
  `seed into the 10,000-entry layer, per entry (batches of ${large.seed.batch}, ${large.seed.rounds} rounds a side): hints off ${fmt(large.seed.off.median)} µs, on ${fmt(large.seed.on.median)} µs (${large.seed.ratio.toFixed(2)}×)`,
  `goals met: ${goals.filter((g) => g.meets).length} of ${goals.length} (reported, not asserted)`,
]
process.stdout.write(`${lines.join('\n')}\n`)
if (out) writeFileSync(out, JSON.stringify(result, null, 2))
