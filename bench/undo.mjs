// What taking a change back costs: `history` of an entry in a store of 10,000 entries and
// 100,000 audit rows, and `revert` beside the write it inverts — replace, add, remove,
// consolidate of three — on the same store, alternating write and revert so both run under
// the same drift of the machine's speed. Writes and reverts go through the gate (approving) with
// similar-write hints off: a revert asks for no hints, so with them on the comparison would
// flatter it by the hints' cost (bench/hints.mjs measures that). run.mjs spawns this in a fresh
// process and prints its table; alone:
//
//   node bench/undo.mjs [--quick] [--out result.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MemoryProvider } from '../index.mjs'
import { HIGH_BUDGETS, fmt, log, since, stats } from './common.mjs'

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null
const WS = '/work/repos/undo-bench'
const write = { agent: { session: { id: 'undo-bench', header: { cwd: WS } } } }
const layer = { track: 'agent', scope: 'workspace' }
const entry = (text) => ({ ...layer, text })
const fact = (i, salt = '') => `Service ${i}${salt} deploys from branch release-${i % 97} and pages team ${i % 13} on failure`
/** What names fact(i) alone, as a person would match it. */
const name = (i) => `Service ${i} deploys`

const N = 10_000
const ROWS = quick ? 30_000 : 100_000
const ITERS = quick ? 30 : 200

const dir = mkdtempSync(path.join(tmpdir(), 'dsh-memento-undo-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const t0 = performance.now()
const p = new MemoryProvider({
  dbPath: path.join(dir, 'memory.db'),
  gate: async () => 'allowed-once',
  budgets: HIGH_BUDGETS,
  similarHints: false,
})

// 10,000 entries, then audit rows up to ROWS: seeds of scratch entries in another layer, each
// taken back by a revert (a row per entry each way), so the store ends with its 10,000 entries.
for (let i = 0; i < N; i += 1000)
  await p.seed(
    Array.from({ length: 1000 }, (_, j) => entry(fact(i + j))),
    write,
  )
for (let round = 0; p.auditList(1)[0].seq < ROWS; round++) {
  const batch = Math.min(5000, Math.ceil((ROWS - p.auditList(1)[0].seq) / 2))
  await p.seed(
    Array.from({ length: batch }, (_, j) => ({ track: 'user', scope: 'workspace', text: `scratch ${round}-${j}` })),
    write,
  )
  await p.revert(p.auditList(1)[0].seq, write)
}
const rows = p.auditList(1)[0].seq
log(`undo: ${N} entries, ${rows} audit rows; timing history and ${ITERS} write/revert pairs a kind`)

// Each entry measured has two versions, so its history reads more than one row.
const idOf = new Map(p.listEntries().map((e) => [e.text, e.id]))
const history = []
for (let i = 0; i < ITERS; i++) {
  await p.replace({ ...layer, match: name(i), text: fact(i, 'b') }, write)
  const t = process.hrtime.bigint()
  const h = p.history(idOf.get(fact(i)))
  history.push(since(t))
  if (h.versions.length !== 2) throw new Error(`history of entry ${i}: ${h.versions.length} versions`)
}

/** `write(k)` then the revert of its newest row, alternating which goes first in the pair's timing. */
async function pairs(kind, doWrite) {
  const w = []
  const r = []
  for (let k = 0; k < ITERS; k++) {
    let t = process.hrtime.bigint()
    await doWrite(k)
    w.push(since(t))
    const seq = p.auditList(1)[0].seq
    t = process.hrtime.bigint()
    await p.revert(seq, write)
    r.push(since(t))
  }
  const [a, b] = [stats(w), stats(r)]
  return { kind, write: a, revert: b, ratio: b.median / a.median }
}

const kinds = [
  await pairs('replace', (k) => p.replace({ ...layer, match: name(k + 5000), text: fact(k + 5000, 'r') }, write)),
  await pairs('add', (k) => p.add(entry(`A new fact number ${k} for the undo bench`), write)),
  await pairs('remove', (k) => p.remove({ ...layer, match: name(k + 7000) }, write)),
  await pairs('consolidate of 3', (k) =>
    p.consolidate(
      {
        ...layer,
        matches: [name(3 * k + 8000), name(3 * k + 8001), name(3 * k + 8002)],
        text: `Services ${3 * k + 8000} to ${3 * k + 8002} deploy from their release branches`,
      },
      write,
    ),
  ),
]
p.close()
const hs = stats(history)
const result = {
  quick,
  entries: N,
  rows,
  history: hs,
  kinds,
  seconds: (performance.now() - t0) / 1000,
  goals: [
    { what: 'history', value: hs.median, text: '≤ 5 ms', meets: hs.median <= 5000 },
    ...kinds.map((k) => ({ what: `revert of ${k.kind}`, value: k.ratio, text: '≤ 1.2× the write', meets: k.ratio <= 1.2 })),
  ],
}
const cell = (s) => `${fmt(s.median)} / ${fmt(s.p95)}`
const met = (g) => (g.meets ? 'yes' : 'NO')
const lines = [
  '',
  `## undo: history and revert on ${N.toLocaleString('en-US')} entries and ${rows.toLocaleString('en-US')} audit rows · ${result.seconds.toFixed(0)} s`,
  '| op | µs (median/p95) | the write it inverts µs | revert / write | goal | met? |',
  '|---|---|---|---|---|---|',
  `| history of an entry (2 versions) | ${cell(hs)} | | | ≤ 5 ms | ${met(result.goals[0])} |`,
  ...kinds.map(
    (k, i) =>
      `| revert of ${k.kind} | ${cell(k.revert)} | ${cell(k.write)} | ${k.ratio.toFixed(2)}× | ≤ 1.2× | ${met(result.goals[i + 1])} |`,
  ),
  `goals met: ${result.goals.filter((g) => g.meets).length} of ${result.goals.length} (reported, not asserted)`,
]
process.stdout.write(`${lines.join('\n')}\n`)
if (out) writeFileSync(out, JSON.stringify(result, null, 2))
