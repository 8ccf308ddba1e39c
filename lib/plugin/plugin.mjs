// `apply(ctx, config)`: wires the provider into the harness (§7.3) with every registration
// fiber-scoped, so dispose and hot reload close the store and remove everything.
//
// Approval transports (the provider's single `gate`):
// * in-turn (default, every ctx.memory caller and the `memory` tool): `ctx.approval.request`
//   with the §5.1 reason, so the harness UI shows the full change and logs
//   approval/asked + approval/decided. The answerer below applies writePolicy/writePolicies.
// * user consent (`/memory …` typed by the user, or a confirmed click in the web panel): the
//   user's own act is the consent; refused only under policy `off` or a session `never`
//   policy, audited `(via command, …)` / `(via panel, …)`. Bound to write contexts the command
//   handler and the panel routes mint themselves (a private WeakMap), so no caller can select it.
import { resolveConfig } from './config.mjs'
import { buildReason, describePolicy, isOwnRequest, parseReason, resolvePolicy, TOOL_NAME } from './policy.mjs'
import { MemoryService } from './service.mjs'
import { makeSnapshotProvider, SNAPSHOT_SECTION } from './snapshot.mjs'
import { makeMemoryTool, makeRecallTool } from './tools.mjs'
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
    const policyOf = (payload) => resolvePolicy(payload, config.writePolicy, config.writePolicies)

    // --- transports -------------------------------------------------------------------
    const userWrites = new WeakMap() // write context → 'command' | 'panel'
    const askFailures = new WeakMap()
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
    const userWrite = (via) => (agent, signal) => {
      const write = { agent, ...(signal ? { signal } : {}) }
      userWrites.set(write, via)
      return write
    }
    const commandWrite = userWrite('command')
    async function gate(payload, write) {
      if (userWrites.has(write)) {
        if (sessionNever(write)) return 'rejected'
        return policyOf(payload).policy === 'off' ? 'rejected' : 'allowed-once'
      }
      const a = approval()
      if (!a || typeof a.request !== 'function') {
        askFailures.set(write, 'no approval service')
        return 'unavailable'
      }
      try {
        return await a.request({
          agent: write.agent,
          toolName: TOOL_NAME,
          reason: buildReason(payload),
          ...(typeof write.callId === 'string' ? { callId: write.callId } : {}),
          ...(write.signal ? { signal: write.signal } : {}),
        })
      } catch (e) {
        askFailures.set(write, String(e?.message ?? e))
        return 'unavailable'
      }
    }
    function auditLabel(outcome, payload, write) {
      const via = userWrites.get(write) ?? 'approval'
      const decider = sessionNever(write) ? 'session approval policy never' : describePolicy(policyOf(payload))
      const failure = askFailures.get(write)
      return `${outcome} (via ${via}, ${decider}${failure ? `; approval ask failed: ${failure}` : ''})`
    }

    // --- store and services -----------------------------------------------------------
    const provider = new MemoryProvider({
      dbPath: config.dbPath,
      gate,
      auditLabel,
      budgets: config.budgets,
      recordBudgets: true, // so that the CLI checks writes against the same limits
      // The provider refuses by itself only under a global `off` that no writePolicies entry
      // loosens; otherwise it always asks the gate and the answerer applies the policy, so
      // `source:`/`track/scope` overrides and a session `never` policy are always honoured.
      writePolicy: config.writePolicy === 'off' && Object.values(config.writePolicies).every((p) => p === 'off') ? 'off' : 'ask',
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

    // The answerer: writePolicy / writePolicies for our own in-turn requests.
    ctx.on(
      'approval/request',
      async (req, next) => {
        if (!isOwnRequest(req)) return next()
        const { policy } = policyOf(parseReason(req.reason))
        if (policy === 'auto') return 'allowed-once'
        if (policy === 'off') return 'rejected'
        return next()
      },
      { prepend: true },
    )

    ctx.tools.register(makeMemoryTool({ service, config }))
    ctx.systemPrompt.section({ name: SNAPSHOT_SECTION, order: config.snapshotOrder, text: makeSnapshotProvider({ service, provider, config, dbPath: provider.path ?? config.dbPath }) })

    // Optional services: a child fiber per service, re-run whenever the service is replaced
    // (L2); the command and route disposers are kept and run on unload (L3).
    const command = makeMemoryCommand({ provider, service, config, commandWrite, registry })
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
