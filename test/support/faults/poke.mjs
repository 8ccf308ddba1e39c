// A child process that opens a store under a file-system fault (read-only, full, size-limited)
// and tries every kind of call once, reporting each outcome. Run in a child so that a crash
// (SIGBUS on a full tmpfs, an abort) is observed as an exit status instead of killing the test.
// Config (JSON argv): dbPath, match (a marker of an existing entry, optional).
// Sends {t:'done', opened, openError?, results: {name: {ok, code?, message?, protocol?}}}.
import { failureOf, HUGE_BUDGETS, openProvider } from './open.mjs'

process.on('SIGXFSZ', () => {})
const { dbPath, match } = JSON.parse(process.argv[2])
const write = { agent: { session: { id: 'poke', header: { cwd: '/srv/fault/ws0' } } } }
let provider
try {
  provider = openProvider({ dbPath, gate: async () => 'allowed-once', budgets: HUGE_BUDGETS })
} catch (e) {
  process.send({ t: 'done', opened: false, openError: failureOf(e), results: {} })
  process.exit(0)
}
const results = {}
const calls = {
  listEntries: () => provider.listEntries().length,
  budgets: () => provider.budgets().map((b) => b.used),
  auditList: () => provider.auditList(5).length,
  query: () => provider.query({ text: 'notes' }, { countRecall: false }).total,
  recall: () => provider.query({ text: 'notes' }, { sessionId: 'poke' }).total,
  add: () => provider.add({ track: 'user', scope: 'user-global', text: 'written under a fault [poke@g]' }, write).then((r) => r.entry.id),
  remove: () => (match ? provider.remove({ track: 'user', scope: 'user-global', match }, write).then((r) => r.entry.id) : null),
  proposalAdd: () =>
    provider.proposalAdd?.({ kind: 'poke', track: 'user', scope: 'user-global', text: 'proposal under a fault', sessionId: 'poke' })?.id ??
    null,
}
if (typeof provider.proposalAdd !== 'function') delete calls.proposalAdd
for (const [name, call] of Object.entries(calls)) {
  try {
    results[name] = { ok: true, value: await call() }
  } catch (e) {
    results[name] = failureOf(e)
  }
}
try {
  provider.close()
} catch (e) {
  results.close = failureOf(e)
}
process.send({ t: 'done', opened: true, results })
process.disconnect()
