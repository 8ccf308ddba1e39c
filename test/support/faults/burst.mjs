// A child process that fires `count` adds into ONE layer at once (all pending in the gate
// together, so every budget pre-check passes), for the cross-process budget race. Config (JSON
// argv): dbPath, procId, count, units (text length), track, scope, limits, gateDelayMs.
// Sends {t:'ready'}, waits for the parent's go, then {t:'done', results} and exits 0.
import { ERROR_CODES } from '../../../index.mjs'
import { openProvider } from './open.mjs'

const { dbPath, procId, count, units, track, scope, limits, gateDelayMs = 20 } = JSON.parse(process.argv[2])
const provider = openProvider({
  dbPath,
  budgets: limits,
  gate: () => new Promise((resolve) => setTimeout(() => resolve('allowed-once'), gateDelayMs)),
})
const write = { agent: { session: { id: `burst-${procId}`, header: { cwd: '/srv/fault/ws0' } } } }
const text = (i) => {
  const marker = `[b${procId}.${i}@${scope === 'user-global' ? 'g' : '0'}]`
  return marker + ' notes'.repeat(Math.ceil(units / 6)).slice(0, units - marker.length)
}

process.send({ t: 'ready' })
await new Promise((resolve) => process.once('message', resolve))
const settled = await Promise.allSettled(Array.from({ length: count }, (_, i) => provider.add({ track, scope, text: text(i) }, write)))
const results = settled.map((s) =>
  s.status === 'fulfilled'
    ? { ok: true, id: s.value.entry.id, used: s.value.usage.used }
    : {
        ok: false,
        code: s.reason?.code,
        message: String(s.reason?.message ?? s.reason),
        protocol: s.reason instanceof Error && ERROR_CODES.includes(s.reason.code),
      },
)
provider.close()
process.send({ t: 'done', results })
process.disconnect()
