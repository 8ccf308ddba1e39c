// Driver plugin (mounted by overlays/driver.yml, the LLM runner disabled): creates a real agent
// session and exercises the plugin through the harness registries, then prints one line
// `DRIVER_RESULT {json}` and exits. $E2E_COMMANDS is a JSON array of `/memory …` lines run
// through ctx.commands.execute (what UIs call).
import { randomUUID } from 'node:crypto'
import { installModelSelection } from '@deepseek-ai/dsh-agent'

export const name = 'e2e-driver'
// `memory` is read with ctx.get after the loader settled (not injected), so the driver survives
// the plugin being reloaded or disabled under it ($E2E_RELOAD).
export const inject = ['agents', 'agentDefaultModel', 'sessions', 'tools', 'commands', 'systemPrompt']

export function apply(ctx) {
  const appExit = ctx.get('appExit') ?? ((code) => process.exit(code))
  const exit = (code) => {
    appExit(code)
    setTimeout(() => process.exit(code), 8000).unref()
  }
  const run = async () => {
    await ctx.get('loader')?.await()
    const selection = ctx.agentDefaultModel.currentSelection()
    const { agent } = await ctx.agents.create({
      sessionId: `session-e2e-${randomUUID()}`,
      meta: { cwd: process.cwd() },
      agentOptions: { provider: selection.provider, model: selection.model },
      setup: (agentCtx) => {
        installModelSelection(agentCtx, { current: selection, assembled: undefined })
      },
    })
    await agent.whenIdle()
    const signal = new AbortController().signal
    const memory = ctx.get('memory')
    const out = {
      memoryService: memory !== undefined,
      memoryKeys: Object.getOwnPropertyNames(Object.getPrototypeOf(memory)).concat(Object.keys(memory)).sort(),
      adapters:
        ctx
          .get('memoryAdapters')
          ?.list()
          .map((a) => a.id) ?? null,
      tools: ['memory', 'memory_recall'].filter((n) => ctx.tools.get(n) !== undefined),
      toolInSchemas: ctx.tools.schemas(agent).some((s) => s.name === 'memory'),
      commandListed: ctx.commands.list(agent).some((c) => c.name === 'memory'),
    }
    const mod = await import('dsh-memento')
    out.config = {
      schemastery: typeof mod.Config?.toJSON === 'function',
      defaults: mod.Config['~standard'].validate({}).value,
    }
    const tool = await ctx.tools.execute({ callId: 'e2e-call-1', name: 'memory', arguments: { action: 'query' }, agent, signal })
    out.toolQuery = { isError: tool.isError, value: tool.value ?? null, error: tool.error?.message }
    const recall = await ctx.tools.execute({ callId: 'e2e-call-2', name: 'memory_recall', arguments: { query: 'tea' }, agent, signal })
    out.recall = {
      isError: recall.isError,
      value: recall.value ?? null,
      error: recall.error?.message,
      sessionQuery: ctx.get('sessionQuery') !== undefined,
    }
    out.commands = []
    for (const line of JSON.parse(process.env.E2E_COMMANDS ?? '[]')) {
      const r = await ctx.commands.execute(agent, line, [], signal)
      out.commands.push({ line, result: r?.result ?? null })
    }
    const assembly = await ctx.systemPrompt.assemble({ agent, scope: agent })
    out.snapshot = assembly.sections.find((s) => s.name === 'dsh-memento:memory')?.text ?? null
    if (process.env.E2E_RELOAD) out.reload = await reload(ctx, agent, signal)
    await ctx.sessions.flush(agent.session)
    process.stdout.write(`DRIVER_RESULT ${JSON.stringify(out)}\n`)
    exit(0)
  }
  run().catch((error) => {
    process.stderr.write(`DRIVER_FAIL ${error?.stack ?? error}\n`)
    exit(1)
  })
}

/** Hot reload through the real Loader: config change (en → zh), disable, re-enable. */
async function reload(ctx, agent, signal) {
  const loader = ctx.get('loader')
  const state = async () => {
    const section = (await ctx.systemPrompt.assemble({ agent, scope: agent })).sections.filter(
      (s) => s.name === 'dsh-memento:memory',
    ).length
    const list = await ctx.commands.execute(agent, '/memory list', [], signal)
    return {
      memory: ctx.get('memory') !== undefined,
      adapters: ctx.get('memoryAdapters') !== undefined,
      tools: ['memory', 'memory_recall'].filter((n) => ctx.tools.get(n) !== undefined),
      description: ctx.tools.get('memory')?.description?.split('\n')[0] ?? null,
      commands: ctx.commands.list(agent).filter((c) => c.name === 'memory').length,
      sections: section,
      list: list?.result?.text ?? null,
    }
  }
  const entry = [...loader.entries()].find((e) => e.options.id === 'memento')
  const update = async (options) => {
    await entry.update(options, false, true)
    await loader.await()
  }
  const before = ctx.get('memory')
  const out = { before: await state() }
  await update({ config: { language: 'zh' } })
  out.zh = await state()
  out.zh.replaced = ctx.get('memory') !== before
  await update({ disabled: true })
  out.disabled = await state()
  await update({ disabled: null, config: {} })
  out.enabled = await state()
  return out
}
