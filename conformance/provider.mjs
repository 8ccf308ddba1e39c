// The conformance factory for dsh-memento's native provider (spec §10 factory contract).
//
//   makeProvider({ dbPath, budgets?, gate?, auditRetentionDays? }) -> { add, replace, remove, consolidate, seed,
//                                                  query, budgets, listEntries, auditList, close,
//                                                  snapshot (optional: the bench uses it if present) }
//
// `budgets` may be partial ({user:{userGlobal:100}}); it is merged over the protocol defaults
// (user 2000/2000, agent 4000/4000). Without `gate`, writes are approved ('allowed-once'):
// this factory is test glue, and third-party suites call it without a gate. The provider itself
// has no such default: `new MemoryProvider` requires a gate.
import { MemoryProvider } from '../index.mjs'

const DEFAULTS = { user: { userGlobal: 2000, workspace: 2000 }, agent: { userGlobal: 4000, workspace: 4000 } }

const approveAll = async () => 'allowed-once'

/** Merges a possibly partial budget config over the defaults. */
export function mergeBudgets(budgets) {
  const b = budgets && typeof budgets === 'object' ? budgets : {}
  return {
    user: { ...DEFAULTS.user, ...(b.user && typeof b.user === 'object' ? b.user : {}) },
    agent: { ...DEFAULTS.agent, ...(b.agent && typeof b.agent === 'object' ? b.agent : {}) },
  }
}

export function makeProvider({ dbPath, budgets, gate, auditRetentionDays } = {}) {
  const p = new MemoryProvider({ dbPath, budgets: mergeBudgets(budgets), gate: gate ?? approveAll, auditRetentionDays })
  return {
    add: (input, write) => p.add(input, write),
    replace: (input, write) => p.replace(input, write),
    remove: (input, write) => p.remove(input, write),
    consolidate: (input, write) => p.consolidate(input, write),
    seed: (inputs, write) => p.seed(inputs, write),
    query: (filter, opts) => p.query(filter, opts),
    budgets: (opts) => p.budgets(opts),
    listEntries: (opts) => p.listEntries(opts),
    snapshot: (keys, labels) => p.snapshot(keys, labels),
    auditList: (limit) => p.auditList(limit),
    close: () => p.close(),
    get path() {
      return p.path
    },
  }
}

export default makeProvider
