// What the bench's parent (run.mjs), its workers (worker.mjs) and its report (report.mjs) share.
import { statSync } from 'node:fs'

const HIGH = 1e9
/** Budgets raised out of the way: no write of the bench ever hits BUDGET_EXCEEDED. */
export const HIGH_BUDGETS = { user: { userGlobal: HIGH, workspace: HIGH }, agent: { userGlobal: HIGH, workspace: HIGH } }

/** Median, p95, mean and count of µs samples (null for none). */
export function stats(samples) {
  if (samples.length === 0) return null
  const v = [...samples].sort((x, y) => x - y)
  const at = (p) => v[Math.round((v.length - 1) * p)]
  // An even count's median is the mean of its two middle samples: a round's two seed batches
  // are not its slower one.
  const mid = v.length >> 1
  const median = v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2
  return { median, p95: at(0.95), mean: v.reduce((s, x) => s + x, 0) / v.length, n: v.length }
}

/** Bytes of a SQLite store: the file and its WAL. */
export function fileBytes(p) {
  let total = 0
  for (const s of ['', '-wal']) {
    try {
      total += statSync(p + s).size
    } catch {}
  }
  return total
}

/** Progress goes to stderr; stdout carries the tables only. */
export const log = (...m) => process.stderr.write(`${m.join(' ')}\n`)

/** A write context ({agent: {session}}) for a planned write's `{sessionId, cwd, agentPreset}`. */
export function writeCtx(w) {
  return { agent: { session: { id: w.sessionId, header: { cwd: w.cwd, agentPreset: w.agentPreset } } } }
}

/** Peak RSS of this process so far, MB. */
export const peakMB = () => process.resourceUsage().maxRSS / 1024

/** µs since a `process.hrtime.bigint()` stamp. */
export const since = (t0) => Number(process.hrtime.bigint() - t0) / 1000

/** µs figures as the tables print them. */
export const fmt = (x) => (x == null ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
