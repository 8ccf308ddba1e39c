// How the reliability tests and their child processes open a provider: the native
// MemoryProvider class by default, or — when `MEMENTO_FAULTS_FACTORY` names a module (or a test
// passes `factory`) — through the spec §10 factory contract `makeProvider({dbPath, budgets,
// gate})`, e.g. conformance/provider.mjs, so the same crash / multi-process / store-fault checks
// run against any provider. Options the contract does not carry (writePolicy, auditVia, …)
// are then not passed, and methods it does not expose (proposals, auditVerify) are skipped by
// the callers.
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ERROR_CODES, MemoryProvider } from '../../../index.mjs'

export const CONFORMANCE_FACTORY = fileURLToPath(new URL('../../../conformance/provider.mjs', import.meta.url))
const factories = new Map()

/** Import a factory module once (call before openProvider with that path). */
export async function loadFactory(file) {
  const full = path.resolve(file)
  if (!factories.has(full)) {
    const mod = await import(pathToFileURL(full).href)
    const make = mod.makeProvider ?? mod.default
    if (typeof make !== 'function') throw new Error(`${file} exports no makeProvider`)
    factories.set(full, make)
  }
  return factories.get(full)
}

const fromEnv = process.env.MEMENTO_FAULTS_FACTORY ? await loadFactory(process.env.MEMENTO_FAULTS_FACTORY) : null

/** Open a provider; `factory` (a path loaded with loadFactory) overrides the environment. */
export function openProvider({ factory, ...options }) {
  const make = factory ? factories.get(path.resolve(factory)) : fromEnv
  if (factory && !make) throw new Error(`factory ${factory} not loaded`)
  if (make) return make({ dbPath: options.dbPath, budgets: options.budgets, gate: options.gate })
  return new MemoryProvider(options)
}

/** Budgets raised out of the way: a fault test's writes fail only by the fault it makes. */
export const HUGE_BUDGETS = { user: { userGlobal: 1e9, workspace: 1e9 }, agent: { userGlobal: 1e9, workspace: 1e9 } }

/** How a call failed, as a fault test reports it: its code, reason, advice and whether it is the protocol's. */
export const failureOf = (e) => ({
  ok: false,
  code: e?.code,
  reason: e?.details?.reason,
  retryable: e?.details?.retryable,
  message: String(e?.message ?? e),
  protocol: e instanceof Error && ERROR_CODES.includes(e.code),
})
