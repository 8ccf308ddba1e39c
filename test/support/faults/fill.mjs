// A child process that writes until the file system refuses (disk full / file-size limit) and
// then keeps trying a few more writes and reads. Config (JSON argv): dbPath, attempts, units,
// after (how many writes to try after the first failure). Installs a SIGXFSZ handler so that a
// file-size rlimit turns into a failing write(2) (EFBIG) instead of killing the process.
// Sends {t:'done', results, opened, openError} and exits 0.
import { failureOf, HUGE_BUDGETS, openProvider } from './open.mjs'

process.on('SIGXFSZ', () => {})
const { dbPath, attempts = 400, units = 4000, after = 5 } = JSON.parse(process.argv[2])
const results = []
let provider
try {
  provider = openProvider({ dbPath, budgets: HUGE_BUDGETS, gate: async () => 'allowed-once' })
} catch (e) {
  process.send({ t: 'done', results, opened: false, openError: failureOf(e) })
  process.exit(0)
}
const write = { agent: { session: { id: 'fill', header: { cwd: '/srv/fault/ws0' } } } }
let failedAt = -1
for (let i = 0; i < attempts && (failedAt < 0 || i < failedAt + after); i++) {
  const marker = `[f${i}@g]`
  const text = `${marker} ${'filler words '.repeat(Math.ceil(units / 13))}`.slice(0, units)
  try {
    const { entry } = await provider.add({ track: 'agent', scope: 'user-global', text }, write)
    results.push({ ok: true, id: entry.id })
  } catch (e) {
    results.push(failureOf(e))
    if (failedAt < 0) failedAt = i
  }
  // Reads must keep working (or fail with a code) whatever the writes do.
  try {
    provider.budgets()
    provider.query({ text: 'filler', limit: 2 }, { countRecall: false })
  } catch (e) {
    results.push({ read: true, ...failureOf(e) })
  }
}
try {
  provider.close()
} catch (e) {
  results.push({ close: true, ...failureOf(e) })
}
process.send({ t: 'done', results, opened: true })
process.disconnect()
