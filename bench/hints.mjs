// What similar-write hints (issue 21) cost a write: `add` with hints and without them, on the
// same store in the same process, alternating call by call (this VM drifts by tens of percent
// over a minute; alternating puts both sides under the same drift), on a 100-entry layer and on
// a 10,000-entry layer with its budget raised; then `seed` per entry on copies of the large
// layer. One provider opens with `similarHints: false`, the other with the default. run.mjs
// spawns this in a fresh process and prints its table; alone:
//
//   node bench/hints.mjs [--quick] [--out result.json]
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MemoryProvider } from '../index.mjs'
import { HIGH_BUDGETS, fmt, log, since, stats } from './common.mjs'

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null
const WS = '/work/repos/hints-bench'
const write = (id) => ({ agent: { session: { id, header: { cwd: WS } } } })

// Memory-shaped facts: a subject and what is true of it, with the numbers, names and versions
// real memories carry (so that later facts update earlier ones), a tenth of them in Chinese.
const SUBJECTS = ['the API server', 'the staging database', 'CI', 'the frontend build', 'the deploy script', 'the auth service', 'the mobile app', 'the docs site', 'the cache layer', 'the billing job', 'the search index', 'the metrics pipeline', 'the admin panel', 'the e2e suite', 'the nightly backup']
const FACTS = [
  (n, t) => `runs on port ${8000 + (n % 997)} behind ${t}`,
  (n, t) => `is built with ${t} ${1 + (n % 9)}.${n % 13}`,
  (n) => `needs ${2 + (n % 30)} GB of memory and ${1 + (n % 16)} cores`,
  (n) => `times out after ${10 + (n % 170)} seconds on cold starts`,
  (n, t, team) => `is owned by the ${team} team; page them before touching it`,
  (n) => `logs to /var/log/svc-${n % 211}/current and rotates daily`,
  (n, t) => `must be deployed with ${t}, never by hand`,
]
const TOOLS = ['pnpm', 'cargo', 'docker', 'helm', 'terraform', 'bazel', 'vite', 'webpack', 'poetry', 'nginx', 'caddy', 'systemd']
const TEAMS = ['platform', 'payments', 'growth', 'infra', 'mobile', 'data', 'security']
const ZH = ['用户偏好简洁的中文回答，代码注释用英文', '部署前必须先跑完整的端到端测试', '预发环境的数据库每周日凌晨重置', '提交信息使用约定式提交格式', '前端构建产物放在 dist 目录下']

function fact(i) {
  if (i % 10 === 9) return `${ZH[i % ZH.length]}（第 ${i} 条）`
  const subject = SUBJECTS[i % SUBJECTS.length]
  const f = FACTS[Math.floor(i / SUBJECTS.length) % FACTS.length]
  return `${subject[0].toUpperCase()}${subject.slice(1)} ${f(i, TOOLS[i % TOOLS.length], TEAMS[i % TEAMS.length])}.`
}
/** The same fact said again in other words, or the same subject with a new value. */
const reworded = (i) => (i % 2 ? `Note: ${fact(i).toLowerCase().replace(/\.$/, '')} (still true)` : fact(i + SUBJECTS.length * FACTS.length))

const entry = (text) => ({ track: 'agent', scope: 'workspace', text })

async function build(dbPath, n) {
  const p = new MemoryProvider({ dbPath, gate: async () => 'allowed-once', budgets: HIGH_BUDGETS, similarHints: false })
  for (let i = 0; i < n; i += 1000) await p.seed(Array.from({ length: Math.min(1000, n - i) }, (_, j) => entry(fact(i + j))), write('hints-build'))
  p.close()
}

/** `add` with and without hints, alternating; each add is removed again (untimed), so the layer stays at `n`. */
async function adds(dbPath, n, iters) {
  let hinted = 0
  const gate = async (payload) => {
    if (payload.similar?.length) hinted++
    return 'allowed-once'
  }
  const on = new MemoryProvider({ dbPath, gate, budgets: HIGH_BUDGETS })
  const off = new MemoryProvider({ dbPath, gate, budgets: HIGH_BUDGETS, similarHints: false })
  const samples = { on: [], off: [] }
  const warm = 20
  for (let k = 0; k < warm + iters; k++) {
    // one in four says again what a stored entry says, as a model that forgot it would
    const text = k % 4 === 0 ? reworded((k * 37) % n) : fact(n + k)
    for (const [side, p] of k % 2 ? [['on', on], ['off', off]] : [['off', off], ['on', on]]) {
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
    const file = `${dbPath}.${side}.db`
    copyFileSync(dbPath, file)
    return new MemoryProvider({ dbPath: file, gate: async () => 'allowed-once', budgets: HIGH_BUDGETS, similarHints: side === 'on' })
  }
  const ps = { on: copy('on'), off: copy('off') }
  const perEntry = { on: [], off: [] }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? ['on', 'off'] : ['off', 'on']) {
      const inputs = Array.from({ length: batch }, (_, j) => entry(j % 4 === 0 ? `${reworded(r * batch + j)} [s${r}]` : `${fact(n * 2 + r * batch + j)} [s${r}]`))
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
for (const [n, iters] of [[100, quick ? 100 : 600], [10000, quick ? 40 : 300]]) {
  const db = path.join(dir, `layer-${n}.db`)
  await build(db, n)
  log(`hints: ${n}-entry layer built; timing ${iters} adds a side`)
  const r = await adds(db, n, iters)
  if (n === 10000) r.seed = await seeds(db, n, quick ? 2 : 6, quick ? 100 : 250)
  result.layers.push(r)
}
result.seconds = (performance.now() - t0) / 1000

const [small, large] = result.layers
const goals = [
  { what: 'add on the 100-entry layer: hints on / off', value: small.ratio, text: '≤ 1.2×', meets: small.ratio <= 1.2 },
  { what: 'add on the 10,000-entry layer, hints on', value: large.on.median, text: '≤ 2 ms', meets: large.on.median <= 2000 },
]
result.goals = goals
const cell = (s) => `${fmt(s.median)} / ${fmt(s.p95)}`
const lines = [
  '',
  `## similar-write hints (issue 21): add with and without hints, alternating call by call on one store · ${result.seconds.toFixed(0)} s`,
  '| layer | add, hints off µs (median/p95) | add, hints on µs | on / off | adds whose approval named an entry | goal | met? |',
  '|---|---|---|---|---|---|---|',
  ...result.layers.map((r, i) => `| ${r.n.toLocaleString('en-US')} entries | ${cell(r.off)} | ${cell(r.on)} | ${r.ratio.toFixed(2)}× | ${r.hinted} of ${r.hintedOf} | ${goals[i].text} | ${goals[i].meets ? 'yes' : 'NO'} |`),
  `seed into the 10,000-entry layer, per entry (batches of ${large.seed.batch}, ${large.seed.rounds} rounds a side): hints off ${fmt(large.seed.off.median)} µs, on ${fmt(large.seed.on.median)} µs (${large.seed.ratio.toFixed(2)}×)`,
  `goals met: ${goals.filter((g) => g.meets).length} of ${goals.length} (reported, not asserted)`,
]
process.stdout.write(`${lines.join('\n')}\n`)
if (out) writeFileSync(out, JSON.stringify(result, null, 2))
