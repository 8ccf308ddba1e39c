// `apply(ctx, config)`: wires the provider into the harness (§7.3) with every registration
// fiber-scoped, so dispose and hot reload close the store and remove everything.
//
// The provider decides each write's policy (writePolicy / writePolicies, from the layers it
// touches and the writer's source) and refuses `off` itself; the payload carries the decision.
// Approval transports (the provider's single `gate`):
// * in-turn (default, every ctx.memory caller and the `memory` tool): `ctx.approval.request`
//   with the payload's reason (the whole change), so the harness UI shows it and logs
//   approval/asked + approval/decided. The answerer below claims exactly the request objects
//   this gate made, and approves those the provider decided `auto`.
// * user consent (`/memory …` typed by the user, or a confirmed click in the web panel): the
//   user's own act is the consent; refused under a session `never` policy, and a panel write
//   only when its change is the one the user confirmed (its digest), audited `(via command, …)`
//   / `(via panel, …)`. Bound to write contexts the command handler and the panel routes mint
//   themselves (a private WeakMap), so no caller can select it.
import { resolveConfig } from '../config.mjs'
import { MemoryService } from '../service.mjs'
import { makeSnapshotProvider, SNAPSHOT_SECTION } from '../snapshot.mjs'
import { makeMemoryTool, makeRecallTool } from '../tools.mjs'
import { makeMemoryCommand } from './command.mjs'
import { makeRoutes } from './web.mjs'
import { createDefaultRegistry } from '../adapters/index.mjs'
import { makeProposalCapture } from './proposals.mjs'

/**
 * @param load () => ({ MemoryProvider, workspaceKeyOf, agentKeyOf }) — the provider module
 *   (the native addon).
 */
export function createApply(load) {
  return function apply(ctx, rawConfig) {
    const config = resolveConfig(rawConfig)
    if (!config.enabled) return
    const { MemoryProvider, workspaceKeyOf, agentKeyOf } = load()

    // --- transports -------------------------------------------------------------------
    const userWrites = new WeakMap() // write context → {via: 'command' | 'panel', digest?}
    const askFailures = new WeakMap()
    const ownRequests = new WeakMap() // approval request this gate made → the provider's policy
    const asked = new WeakMap() // write context → the payload its approval was asked with
    /** What the approval of `write` named as alike (`similar`), for the writer to show after the write. */
    const similarOf = (write) => asked.get(write)?.similar ?? []
    /** The change as the approval of `write` showed it (`reason`), for a surface with no approval to show it in. */
    const shownOf = (write) => asked.get(write)?.reason
    const approval = () => ctx.get('approval')
    const sessionNever = (write) => {
      const a = approval()
      const session = write?.agent?.session
      if (!a || !session) return false
      try {
        const policy = typeof a.effectivePolicy === 'function' ? a.effectivePolicy(session) : (a.overrideOf?.(session) ?? a.config?.policy)
        return policy === 'never'
      } catch {
        return false
      }
    }
    /** A write context for the user's own act (`via`, also the writer's source the policy keys on); a panel write names the digest of the change the user confirmed. */
    const userWrite = (via) => (agent, signal, digest) => {
      const write = { agent, source: via, ...(signal ? { signal } : {}) }
      userWrites.set(write, { via, digest })
      return write
    }
    const commandWrite = userWrite('command')
    async function gate(payload, write) {
      if (write && typeof write === 'object') asked.set(write, payload)
      const user = userWrites.get(write)
      if (user) {
        if (sessionNever(write)) return 'rejected'
        if (user.digest !== undefined && user.digest !== payload.digest) {
          askFailures.set(write, 'the change is not the one the user confirmed')
          return 'rejected'
        }
        return 'allowed-once'
      }
      const a = approval()
      if (!a || typeof a.request !== 'function') {
        askFailures.set(write, 'no approval service')
        return 'unavailable'
      }
      const request = {
        agent: write.agent,
        toolName: 'memory',
        reason: payload.reason,
        ...(typeof write.callId === 'string' ? { callId: write.callId } : {}),
        ...(write.signal ? { signal: write.signal } : {}),
      }
      ownRequests.set(request, payload.policy.policy)
      try {
        return await a.request(request)
      } catch (e) {
        askFailures.set(write, String(e?.message ?? e))
        return 'unavailable'
      }
    }
    /** Who carried the approval (the provider writes the label): the transport, a session `never` policy, why asking failed. */
    function auditVia(outcome, payload, write) {
      const via = userWrites.get(write)?.via ?? 'approval'
      const failure = askFailures.get(write)
      return {
        via,
        ...(sessionNever(write) ? { decider: 'session approval policy never' } : {}),
        ...(failure ? { detail: via === 'approval' ? `approval ask failed: ${failure}` : failure } : {}),
      }
    }

    // --- store and services -----------------------------------------------------------
    const provider = new MemoryProvider({
      dbPath: config.dbPath,
      gate,
      auditVia,
      budgets: config.budgets,
      recordBudgets: true, // so that the CLI checks writes against the same limits
      writePolicy: config.writePolicy,
      writePolicies: config.writePolicies,
      proposalMaxChars: config.proposals.maxChars,
      proposalMaxPending: config.proposals.maxPending,
      defaultQueryLimit: config.maxEntriesPerQuery,
      sourceLabel: 'dsh-memento',
      auditRetentionDays: config.auditRetentionDays,
      secretPolicy: config.secretPolicy,
    })
    try {
      ctx.effect(() => () => provider.close(), 'dsh-memento: close store')
    } catch (error) {
      provider.close() // a context that cannot own the store must not leave it open
      throw error
    }
    const service = new MemoryService(provider, { language: config.language, keys: { workspaceKeyOf, agentKeyOf } })
    ctx.provide('memory', service)
    const registry = createDefaultRegistry()
    ctx.provide('memoryAdapters', registry)

    // The answerer: approves the requests this gate made for writes the provider decided
    // `auto` (its `off` never reaches a gate). Every other request, ours under `ask` included,
    // goes on to the harness's own answerers (the user).
    ctx.on('approval/request', async (req, next) => (ownRequests.get(req) === 'auto' ? 'allowed-once' : next()), { prepend: true })

    ctx.tools.register(makeMemoryTool({ service, provider, config, similarOf }))
    ctx.systemPrompt.section({ name: SNAPSHOT_SECTION, order: config.snapshotOrder, text: makeSnapshotProvider({ service, provider, config, dbPath: provider.path ?? config.dbPath }) })

    // Optional services: a child fiber per service, re-run whenever the service is replaced
    // (L2); the command and route disposers are kept and run on unload (L3).
    const command = makeMemoryCommand({ provider, service, config, commandWrite, registry, similarOf, shownOf })
    ctx.inject(['commands'], (sub) => {
      const dispose = sub.commands.register(command)
      sub.effect(() => dispose, 'dsh-memento: /memory')
    })
    ctx.tools.register(makeRecallTool({ service, config, getSessionQuery: () => ctx.get('sessionQuery') }))
    // The panel writes for the session its page shows, which must be live in this process.
    const sessionOf = (id) => {
      const agent = ctx.get('agents')?.get?.(id)
      const session = agent?.session ?? ctx.get('sessions')?.get?.(id)
      return session ? { agent, session } : undefined
    }
    const routes = makeRoutes({ service, provider, config, userWrite: userWrite('panel'), sessionOf, trustedHosts: () => ctx.get('connection')?.trustedHosts ?? [] })
    ctx.inject(['webServer'], (sub) => {
      sub.effect(() => {
        const disposers = routes.map((route) => sub.webServer.register(route))
        return () => {
          for (const d of disposers.reverse()) d()
        }
      }, 'dsh-memento: panel routes')
    })
    ctx.on('session/event', makeProposalCapture({ provider, service, config }))
  }
}
