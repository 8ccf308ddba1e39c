// `apply(ctx, config)`: wires the provider into the harness (§7.3) with every registration
// fiber-scoped, so dispose and hot reload close the store and remove everything. The approval
// transports the provider's gate uses are in ./approval.mjs.
import { resolveConfig } from '../config.mjs'
import { MemoryService } from '../service.mjs'
import { makeSnapshotProvider, SNAPSHOT_SECTION } from '../snapshot.mjs'
import { makeMemoryTool, makeRecallTool } from '../tools.mjs'
import { makeMemoryCommand } from './command.mjs'
import { makeRoutes } from '../panel/index.mjs'
import { createDefaultRegistry } from '../adapters/index.mjs'
import { makeProposalCapture } from './proposals.mjs'
import { makeApproval } from './approval.mjs'

/**
 * @param load () => ({ MemoryProvider, workspaceKeyOf, agentKeyOf }) — the provider module
 *   (the native addon).
 */
export function createApply(load) {
  return function apply(ctx, rawConfig) {
    const config = resolveConfig(rawConfig)
    if (!config.enabled) return
    const { MemoryProvider, workspaceKeyOf, agentKeyOf } = load()

    const { gate, auditVia, answerer, userWrite, similarOf, shownOf } = makeApproval(() => ctx.get('approval'))
    const commandWrite = userWrite('command')

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

    // The answerer of the requests the gate made (./approval.mjs), ahead of the harness's own.
    ctx.on('approval/request', answerer, { prepend: true })

    ctx.tools.register(makeMemoryTool({ service, provider, config, similarOf }))
    ctx.systemPrompt.section({
      name: SNAPSHOT_SECTION,
      order: config.snapshotOrder,
      text: makeSnapshotProvider({ service, provider, config, dbPath: provider.path ?? config.dbPath }),
    })

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
    const routes = makeRoutes({
      service,
      provider,
      config,
      userWrite: userWrite('panel'),
      sessionOf,
      trustedHosts: () => ctx.get('connection')?.trustedHosts ?? [],
    })
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
