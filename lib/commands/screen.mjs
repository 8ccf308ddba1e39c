// Which import entries the provider's secret screen refuses, so an import can name every one
// (not just say that one of them is a credential) and can leave them out (`--skip-flagged`).
//
// The screen lives in the Rust core (src/protocol/screen.rs) and runs when a write is planned,
// before the approval gate. The addon exports no screening call yet, so `flaggedEntries` asks the
// core the only way it can: it plans `seed`s of parts of the batch in a throwaway store whose gate
// refuses everything (nothing can be written, not even there) and bisects down to the refused
// entries, then to the refused line and words of each. When the addon gains
// `screenEntries(inputs) → [{index, kind, field, excerpt?}]`, this function uses it and the probing goes.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const REDACTED = '<redacted>'
const isSecretRefusal = (e) => e?.code === 'INVALID_INPUT' && e.details?.reason === 'secret'
/** The kind the core names in its refusal ("… looks like it contains a private key; …"). */
const kindOf = (e) => /looks like it contains (.+?); /.exec(e.message)?.[1] ?? 'a credential'

/** A refusal from the core's screen: `{kind}`, or null when `input` passes it. */
async function probe(provider, inputs) {
  try {
    await provider.seed(inputs, { agent: { session: { id: 'screen-probe', header: {} } } })
  } catch (e) {
    if (isSecretRefusal(e)) return { kind: kindOf(e) }
  }
  return null
}

/**
 * Where an entry's credential is: `{field: 'text', excerpt}` with the flagged line and its
 * credential-looking words replaced by `<redacted>`, or `{field: 'source' | 'tags'}`.
 */
async function locate(provider, input) {
  const { tags: _t, source: _s, ...bare } = input
  const refused = async (text) => (await probe(provider, [{ ...bare, text }])) !== null
  if (!(await refused(input.text))) return { field: input.source && (await probe(provider, [{ ...bare, text: '-', source: input.source }])) ? 'source' : 'tags' }
  return { field: 'text', excerpt: await excerpt(input.text, refused) }
}

async function excerpt(text, refused) {
  let line = null
  for (const l of text.split('\n')) if (await refused(l)) { line = l; break }
  if (line === null) return REDACTED // only the text as a whole (a key's armour over lines)
  // words with digits first, then the longest: a credential rather than the name before it
  const words = [...new Set(line.split(/\s+/).filter((w) => w.length >= 4))].sort((a, b) => /\d/.test(b) - /\d/.test(a) || b.length - a.length)
  for (const w of words.slice(0, 12)) {
    line = line.split(w).join(REDACTED)
    if (!(await refused(line))) return line.length > 120 ? `${line.slice(0, 117)}…` : line
  }
  return REDACTED
}

/**
 * The inputs the secret screen refuses, in order: `[{index, kind, field, excerpt?}]` (`field`:
 * text, source or tags; `excerpt`: the flagged line of the text with the credential replaced by
 * `<redacted>`).
 * @param {object[]} inputs validated entry inputs
 */
export async function flaggedEntries(inputs) {
  const native = await import('../../index.mjs')
  if (typeof native.screenEntries === 'function') return native.screenEntries(inputs)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-screen-'))
  const big = { userGlobal: 1e9, workspace: 1e9 }
  const provider = new native.MemoryProvider({ dbPath: path.join(dir, 'probe.db'), gate: async () => 'rejected', secretPolicy: 'refuse', budgets: { user: big, agent: big } })
  try {
    const found = []
    const bisect = async (lo, hi) => {
      const hit = await probe(provider, inputs.slice(lo, hi))
      if (!hit) return
      if (hi - lo === 1) return found.push({ index: lo, kind: hit.kind, ...(await locate(provider, inputs[lo])) })
      const mid = (lo + hi) >> 1
      await bisect(lo, mid)
      await bisect(mid, hi)
    }
    if (inputs.length) await bisect(0, inputs.length)
    return found
  } finally {
    provider.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export { isSecretRefusal }
