// The bench's tables: one per store, every operation against the JS plugin measured in the same
// run, its goal, and the floor. Goals are reported, never asserted.
import { fmt } from './common.mjs'

/** Rows (the first one the head) as a Markdown table, columns padded. */
function grid(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)))
  const line = (r) => `| ${r.map((cell, c) => String(cell).padEnd(widths[c])).join(' | ')} |`
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)]
}

// ---------------------------------------------------------------------------------------------
// every shape: ours, the JS plugin measured in the same run, how much faster, the goal, met?,
// the floor

// `meets(ours, jsOverOurs, floor)`: ours in µs, how many times faster than the JS plugin, and the
// floor's µs (null without one).
const asFast = (k) => ({ text: `≥ ${k}× (no slower, within noise)`, vsJs: true, meets: (o, x) => x >= k })
const faster = (k, nearFloor) => ({
  text: `≥ ${k}× faster${nearFloor ? ` and ≤ ${nearFloor}× the floor` : ''}`,
  vsJs: true,
  meets: (o, x, f) => x >= k && (!nearFloor || f == null || o <= nearFloor * f),
})
const atMost = (us) => ({ text: `≤ ${us >= 1000 ? `${us / 1000} ms` : `${us} µs`}`, meets: (o) => o <= us })
// The audit list at a million rows reads as it does at the store's own: flat.
const flat = {
  text: 'flat: ≤ 1.5× at base + 20 µs',
  meets: (o, x, f, res) => o <= 1.5 * (res.ours.ops['auditList.base']?.median ?? 0) + 20,
}
const noGoal = { text: '', meets: () => null }

/** The goals of a shape against the JS plugin: [op, label, goal]. */
export function goalsOf(shape) {
  const add =
    shape === 'large-layers'
      ? ['add', 'add (a layer past its default budget)', faster(3)]
      : ['add', 'add (layers within their default budgets)', faster(5)]
  const ops = [
    ['first', 'open + snapshot + first query (fresh process)', faster(2)],
    ['open', 'open (warm)', asFast(0.9)],
    ['auditList.base', 'auditList(100)', asFast(0.9)],
    ['seed.entry', 'seed, per entry (batches of 100, hints on)', asFast(1)],
    ['remove', 'remove (targeted)', faster(10)],
    ['replace', 'replace', faster(10)],
    ['consolidate', 'consolidate (2 targets)', faster(10)],
    add,
    ['query.rare', 'query rare token', faster(5, 2)],
    ['query.common', 'query common word, limit 20', faster(5, 2)],
    ['query.cjk2', 'query 2-char CJK', faster(5, 2)],
    ['query.session', 'query, session-scoped', faster(5, 2)],
    ['budgets', 'budgets()', atMost(20)],
  ]
  if (shape === 'workspaces')
    ops.push(
      ['auditList.filled', 'auditList(100) @ the filled audit table', flat],
      ['snapshot', 'snapshot render (the JS core has none)', noGoal],
    )
  return ops
}

/**
 * Each op's verdict: {ours, js, faster, goal, meets} (`meets` null when the JS plugin is missing
 * and the goal needs it). `faster`: the median of the paired rounds' JS/ours ratios (run.mjs),
 * else the ratio of the pooled medians.
 */
export function verdicts(res) {
  const out = {}
  const jsOps = res.js?.ops
  for (const [op, , goal] of goalsOf(res.shape)) {
    const o = res.ours.ops[op]?.median
    const js = jsOps?.[op]?.median ?? null
    const x = jsOps?.[op]?.ratio ?? (o && js ? js / o : null)
    const f = floorOf(res, op)?.median ?? null
    const meets = o == null ? false : goal.vsJs && x == null ? null : goal.meets(o, x, f, res)
    out[op] = { ours: o ?? null, js, faster: x, goal: goal.text, meets }
  }
  const rss = res.ours.rss.runPeakMB
  const jsRss = res.js?.rss?.runPeakMB ?? null
  out.peakRssMB = { ours: rss, js: jsRss, faster: null, goal: '≤ half the JS plugin', meets: jsRss == null ? null : rss <= jsRss / 2 }
  return out
}

/** A shape's table: ours, the JS plugin (same run), JS/ours, the goal, met?, the floor. */
export function shapeTable(res) {
  const head = ['op', 'ours µs (median/p95)', 'JS plugin µs (median/p95)', 'JS / ours', 'goal', 'met?', 'floor µs', 'ours / floor']
  const v = verdicts(res)
  // A row no side measured (the filled audit table is only the first store's) is left out.
  const measured = ([op]) => res.ours.ops[op] || res.js?.ops?.[op] || floorOf(res, op)
  const goals = goalsOf(res.shape).filter(measured)
  const rows = [head]
  for (const [op, label] of goals) {
    const raw = res.ours.ops[op]
    const o = raw?.error ? null : raw
    const f = floorOf(res, op)
    rows.push([
      label,
      oursCell(raw),
      res.js?.ops ? oursCell(res.js.ops[op]) : '—',
      times(v[op].faster),
      v[op].goal,
      yesNo(v[op].meets),
      floorCell(f),
      times(floorRatio(o, f)),
    ])
  }
  const r = res.ours.rss
  const snap = r.beforeSnapshotMB != null ? `, ${r.beforeSnapshotMB.toFixed(0)} before the snapshot` : ''
  const parts = `measure ${r.peakMB.toFixed(0)}${snap}, writes ${(r.writesPeakMB ?? 0).toFixed(0)}, first query ${(r.firstPeakMB ?? 0).toFixed(0)}, build ${r.buildPeakMB.toFixed(0)}`
  const jsRss = res.js?.rss?.runPeakMB
  rows.push([
    'peak RSS (MB), any process',
    `${r.runPeakMB.toFixed(0)} (${parts})`,
    jsRss == null ? '—' : jsRss.toFixed(0),
    '',
    v.peakRssMB.goal,
    yesNo(v.peakRssMB.meets),
    '',
    '',
  ])
  rows.push([
    'store file (MB)',
    (res.ours.info.fileBytes / 1e6).toFixed(1),
    '',
    '',
    '',
    '',
    res.floor?.info?.fileBytes != null ? (res.floor.info.fileBytes / 1e6).toFixed(1) : '—',
    '',
  ])
  const inf = res.ours.info
  const layer = Math.round(res.n / 4).toLocaleString('en-US')
  const beside = res.js?.missing
    ? `JS plugin NOT MEASURED: ${res.js.missing}`
    : `JS plugin measured in this run on node ${res.js?.node}, beside ours round by round (its node:sqlite needs Node ≥ 22.19; ours on node ${process.version})`
  const auditBase = inf.auditFill
    ? ` · audit base ≈${res.floor?.info?.auditRowsBase ?? '?'} rows, filled ${inf.auditFill.auditRows} rows`
    : ''
  const title =
    res.shape === 'large-layers'
      ? `large layers: ${res.n.toLocaleString('en-US')} entries in one workspace (4 layers of ≈${layer})`
      : `workspaces: ${res.n.toLocaleString('en-US')} entries, layers within their default budgets${auditBase}`
  const lines = ['', `## ${title} · ${beside}`, ...grid(rows)]
  const extra = commonNotes(res)
  if (inf.openFilled) extra.push(`open with the filled audit table ${fmt(inf.openFilled.median)} µs`)
  if (inf['add.retention.filled'])
    extra.push(
      `add with auditRetentionDays 30 at the filled audit table (prunes the expired head of the ledger in the same transaction) ${fmt(inf['add.retention.filled'].median)} µs`,
    )
  if (inf['snapshot.viaQuery']?.median != null)
    extra.push(
      `snapshot from query({limit: 1000}, {agentKey, workspaceKey, countRecall: false}) + budgets + renderSnapshot ${fmt(inf['snapshot.viaQuery'].median)} µs`,
    )
  if (inf.snapshotPath) extra.push(`snapshot = ${inf.snapshotPath}; ${inf.snapshotChars} chars`)
  if (inf.auditFill)
    extra.push(
      `audit rows appended by floor fill-audit (plain SQL) in ${inf.auditFill.seconds.toFixed(1)} s; by protocol queries with sessionId it would take ≈ ${inf['query.sessionId'] ? ((inf['query.sessionId'].median * inf.auditFill.auditRows) / 1e6).toFixed(0) : '?'} s`,
    )
  const first = res.ours.ops.first
  if (first)
    extra.push(
      `open + snapshot + first query: ${first.n} fresh processes, each timing makeProvider, the session's snapshot and one rare query (default options) after importing the provider (import ${fmt(inf.firstImportMs * 1000)} µs, not counted); within one process (open + query + close, warm) ${fmt(res.ours.ops['open.firstQuery']?.median)} µs`,
    )
  const minimal = ['add', 'seed.entry', 'replace', 'remove', 'consolidate']
    .filter((op) => res.floor?.info?.[`${op}.minimal`])
    .map((op) => `${op} ${fmt(res.floor.info[`${op}.minimal`].median)}`)
  if (minimal.length)
    extra.push(`floor writes with the mutation + audit only (no lookup, budget checks or chain tail), µs: ${minimal.join(', ')}`)
  extra.push(
    `build: ${res.n.toLocaleString('en-US')} entries seeded in batches of 1,000 in ${inf.buildSeconds.toFixed(1)} s = ${fmt((inf.buildSeconds * 1e6) / res.n)} µs per entry`,
  )
  const held = goals.filter(([, , goal]) => goal !== noGoal)
  const met = held.filter(([op]) => v[op].meets).length + (v.peakRssMB.meets ? 1 : 0)
  const unknown = held.filter(([op]) => v[op].meets === null).length + (v.peakRssMB.meets === null ? 1 : 0)
  extra.push(`goals met: ${met} of ${held.length + 1}${unknown ? ` (${unknown} need the JS plugin)` : ''} (reported, not asserted)`)
  if (res.js?.ops)
    extra.push(
      `JS / ours: the median of the ratios of rounds measured back to back (reads: ${res.js.readRounds} rounds of each group, writes: each round, first query: each pair of fresh processes); the µs columns pool every round`,
    )
  if (res.js?.checks?.length) extra.push(`JS plugin checks failed: ${[...new Set(res.js.checks)].slice(0, 5).join('; ')}`)
  return [...lines, ...floorNotes(res, extra)].join('\n')
}

// ---------------------------------------------------------------------------------------------
// cells and notes both tables print

/** The floor's figure for an op (open + first query within a process: its open + rare query). */
function floorOf(res, op) {
  const fo = res.floor?.ops
  if (op === 'open.firstQuery' && fo?.open && fo?.['query.rare'])
    return { median: fo.open.median + fo['query.rare'].median, plan: 'open + query rare' }
  if (op === 'first' && fo?.first) return { ...fo.first, plan: 'fresh process: open + folded fts, no snapshot' }
  return fo?.[op]
}

/** ours / floor: for writes the median of the rounds' paired ratios (see bench/README.md). */
const floorRatio = (o, f) => (o && f ? (f.ratio ?? o.median / f.median) : null)
const times = (x) => (x == null ? '—' : `${x.toFixed(1)}×`)
const yesNo = (meets) => (meets == null ? '' : meets ? 'yes' : 'NO')
const oursCell = (raw) => (raw?.error ? `ERROR (${raw.error.slice(0, 40)})` : raw ? `${fmt(raw.median)} / ${fmt(raw.p95)}` : 'n/a')
const floorCell = (f) => (f ? `${fmt(f.median)}${f.plan ? ` (${f.plan})` : ''}` : '—')

/** Information rows about our reads, under either table. */
function commonNotes(res) {
  const inf = res.ours.info
  const notes = []
  if (inf['query.rare.noRecall']) notes.push(`query rare with countRecall:false ${fmt(inf['query.rare.noRecall'].median)} µs`)
  if (inf['query.sessionId']) notes.push(`query with sessionId (writes a recalled row) ${fmt(inf['query.sessionId'].median)} µs`)
  if (inf['budgets.noWs']) notes.push(`budgets() without workspaceKey ${fmt(inf['budgets.noWs'].median)} µs`)
  if (inf['open.constructorOnly']) notes.push(`open without close ${fmt(inf['open.constructorOnly'].median)} µs`)
  return notes
}

/** `extra`, the floor's information rows and any failed checks, as the lines under a table. */
function floorNotes(res, extra) {
  const fi = res.floor?.info
  const notes = [...extra]
  if (fi?.['query.common.pageOnly'])
    notes.push(`floor common-word page alone, without the exact total: ${fmt(fi['query.common.pageOnly'].median)} µs`)
  if (fi?.['add.noFts'])
    notes.push(
      `floor without writing the provider's FTS index: add ${fmt(fi['add.noFts'].median)} µs, seed ${fmt(fi['seed.batch100.noFts'].median)} µs per 100 (the index maintenance is the rest of the write floor)`,
    )
  if (fi?.fts) notes.push(`floor FTS: ${fi.fts}`)
  const lines = notes.map((e) => `- ${e}`)
  if (res.ours.checks.length) lines.push(`- CHECKS FAILED: ${[...new Set(res.ours.checks)].slice(0, 10).join('; ')}`)
  return lines
}
