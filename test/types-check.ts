// Compile-time check of the public types (run by `tsc --noEmit -p .`; never executed).
import { MemoryProvider, isMemoryError, type BudgetExceededDetails, type WriteContext, type MemoryEntry } from '../index'

declare const signal: AbortSignal
const write: WriteContext = { agent: { session: { id: 's', header: { cwd: '/w', agentPreset: 'coder' } } }, signal }
const provider = new MemoryProvider({ dbPath: '', gate: async (payload) => (payload.action === 'add' ? 'allowed-once' : 'rejected') })

export async function example(): Promise<MemoryEntry[]> {
  const { entry, usage } = await provider.add({ track: 'user', scope: 'workspace', text: 'prefers pnpm', tags: ['tooling'] }, write)
  const used: number = usage.used
  await provider.replace({ track: 'user', scope: 'workspace', match: 'pnpm', text: 'prefers pnpm 9', tags: [] }, write)
  const page = provider.query({ text: 'pnpm', limit: 5 }, { agentKey: 'coder', workspaceKey: '/w', countRecall: false })
  try {
    await provider.remove({ track: 'user', scope: 'workspace', match: 'nothing' }, write)
  } catch (e) {
    if (isMemoryError(e) && e.code === 'ENTRY_NOT_FOUND') console.log(e.details, used, entry.id)
  }
  const added = await provider.add({ track: 'user', scope: 'workspace', text: 'prefers pnpm 9' }, write)
  for (const s of added.similar ?? []) console.log(s.relation === 'duplicate', s.score.toFixed(2), s.text)
  try {
    await provider.add({ track: 'user', scope: 'workspace', text: 'x'.repeat(5000) }, write)
  } catch (e) {
    if (isMemoryError(e) && e.code === 'BUDGET_EXCEEDED') {
      const plan = (e.details as unknown as BudgetExceededDetails).suggestions ?? []
      for (const s of plan)
        await (s.action === 'remove' ? provider.remove(s.input as never, write) : provider.consolidate(s.input as never, write))
    }
  }
  for (const f of provider.health({ staleDays: 30 }).findings) if (f.kind === 'duplicates' && f.fix) console.log(f.id, f.fix.frees)
  const one: MemoryEntry | null = provider.entry('some-id')
  if (one) console.log(one.text)
  return page.entries
}
