// Import sources, read the same way for `/memory import` and `dsh-memento import`: a file, a
// directory (of export parts and their manifest, or an adapter's files), `-` (stdin) or inline
// JSON. Every source is read and its documents checked before anything is asked or written; the
// entries themselves are checked once, by the provider's seed.
import fs from 'node:fs'
import path from 'node:path'
import { isManifest, manifestParts, parseImportText, readEnvelopes } from '../envelope.mjs'
import { adapterNotFound, adapterPayload, invalidInput } from '../errors.mjs'
import { append } from '../adapters/util.mjs'
import { parseIndex } from '../adapters/memory-standard.mjs'

const isDir = (p) => p !== '-' && fs.existsSync(p) && fs.statSync(p).isDirectory()
/** The files an adapter reads when it is given a directory. */
const ADAPTER_FILES = {
  'hermes-memory-md': ['MEMORY.md', 'USER.md'],
  'claude-code-memory-md': ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md'],
}

/** `{label, data}` of one source: the bytes of a file or stdin, or the inline JSON text. */
function readSource(arg) {
  if (arg === '-') return { label: 'stdin', data: fs.readFileSync(0) }
  if (/^\s*[[{]/.test(arg)) return { label: 'inline JSON', data: arg }
  try {
    return { label: JSON.stringify(arg), data: fs.readFileSync(arg) }
  } catch (e) {
    throw invalidInput(`import: cannot read ${JSON.stringify(arg)}: ${e.message}`)
  }
}

/**
 * What an adapter is given of a file: claude-code takes the bytes (it decodes them strictly, so a
 * U+FFFD in the file is told apart from a byte that is not UTF-8); other adapters take text.
 */
const payloadOf = (id, data) => (id === 'claude-code-memory-md' ? data : String(data))

function readDirFiles(dir, filter) {
  const files = {}
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name
      if (d.isDirectory()) {
        if (!d.name.startsWith('.')) walk(r)
      } else if (filter(r)) files[r] = fs.readFileSync(path.join(dir, r), 'utf8')
    }
  }
  walk('')
  return files
}

/**
 * Adapter payloads of a path: memory-standard roots are file maps, other directories their known
 * files, each file once (CLAUDE.md is often a symlink to, or a copy of, AGENTS.md); an item
 * `{warning}` says which file was left out.
 */
function adapterPayloads(id, arg) {
  if (!isDir(arg)) return [{ payload: payloadOf(id, readSource(arg).data), file: arg === '-' || /^\s*[[{]/.test(arg) ? undefined : arg }]
  if (id === 'memory-standard') return [{ payload: { files: readDirFiles(arg, (r) => r.endsWith('.md')) }, file: arg }]
  // a Claude Code auto-memory directory (~/.claude/projects/<slug>/memory) has a MEMORY.md index
  const autoMemory = id === 'claude-code-memory-md' && path.basename(path.resolve(arg)) === 'memory' ? ['MEMORY.md'] : []
  const names = [...(ADAPTER_FILES[id] ?? []), ...autoMemory]
  const found = names.filter((n) => fs.existsSync(path.join(arg, n)))
  if (!found.length)
    throw invalidInput(
      `import: ${arg} is a directory${names.length ? ` with none of ${names.join(', ')}` : `; adapter ${id} reads a file`}`,
    )
  const seen = []
  const link = (n) => fs.lstatSync(path.join(arg, n)).isSymbolicLink()
  return [...found.filter((n) => !link(n)), ...found.filter(link)].flatMap((n) => {
    const file = path.join(arg, n)
    const real = fs.realpathSync(file)
    const payload = payloadOf(id, fs.readFileSync(file))
    const same = id === 'claude-code-memory-md' && (seen.find((o) => o.real === real) ?? seen.find((o) => o.payload.equals(payload)))
    if (same)
      return [
        { warning: { message: `${n} ${same.real === real ? 'is the same file as' : 'has the same content as'} ${same.n}; imported once` } },
      ]
    seen.push({ n, real, payload })
    return [{ payload, file }]
  })
}

const readIfExists = (dir) => (name) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : null)

/**
 * Export documents of a source: one document; a manifest's parts (read beside it); or a
 * directory's `.json` files in name order — exactly its manifest's parts when it holds one.
 */
function readDocuments(arg) {
  if (!isDir(arg)) {
    const { label, data } = readSource(arg)
    const doc = parseImportText(String(data), label)
    if (!isManifest(doc)) return [doc]
    if (label === 'stdin' || label === 'inline JSON')
      throw invalidInput(
        `import: a manifest from ${label} has no directory to find its parts in; import the directory that holds the parts`,
      )
    return manifestParts(doc, readIfExists(path.dirname(arg)), label)
  }
  const names = fs
    .readdirSync(arg)
    .filter((n) => n.endsWith('.json'))
    .sort()
  if (!names.length) throw invalidInput(`import: ${arg} holds no .json export files`)
  const docs = names.map((n) => parseImportText(fs.readFileSync(path.join(arg, n), 'utf8'), JSON.stringify(path.join(arg, n))))
  const m = docs.findIndex(isManifest)
  if (m < 0) return docs
  const parts = manifestParts(docs[m], readIfExists(arg), JSON.stringify(path.join(arg, names[m])))
  const listed = new Set([names[m], ...docs[m].parts.map((p) => p.file)])
  const other = names.filter((n) => !listed.has(n))
  if (other.length)
    throw invalidInput(
      `import: ${arg} holds ${other.join(', ')} besides the parts its manifest lists; import ${other.length === 1 ? 'it' : 'them'} separately`,
    )
  return parts
}

/** A memory-standard root's topic per MEMORY.md line (its entries' locations are index lines). */
function topicsOf(payload) {
  const index = typeof payload === 'string' ? payload : payload?.files?.['MEMORY.md']
  try {
    return new Map(parseIndex(index).entries.map((x) => [x.line, x.topic]))
  } catch {
    return new Map()
  }
}

/**
 * The entry inputs of an import (the provider checks each when it plans the seed):
 * `{inputs, origins, warnings, from}` where `from` is `{adapter}` or `{parts}` (for the result
 * text) and `origins[i]` says where input i came from
 * (`{label}` in an export document; `{file, line, topic?}` from an adapter) for messages.
 * @param registry the adapter registry (used with `adapter`)
 * @param {{sources: string[], adapter?: string, track?: string, scope?: string, followImports?: boolean}} a
 *   `followImports`: let the adapter read the files a CLAUDE.md `@imports` (5 hops, each file once)
 */
export function readImport(registry, { sources, adapter, track, scope, followImports }) {
  if (adapter === undefined) {
    const { inputs, parts, labels } = readEnvelopes(sources.flatMap(readDocuments))
    return { inputs, origins: labels.map((label) => ({ label })), warnings: [], from: { parts } }
  }
  if (!registry.get(adapter)) throw adapterNotFound(adapter)
  const inputs = []
  const origins = []
  const warnings = []
  const follow = followImports
    ? { followImports: true, readFile: (p) => fs.readFileSync(p), realpath: (p) => fs.realpathSync(p), visited: new Set() }
    : {}
  for (const { payload, file, warning } of adapterPayloads(adapter, sources[0])) {
    if (warning) {
      warnings.push(warning)
      continue
    }
    const res = registry.adapt(adapter, payload, { file, ...(track ? { track } : {}), ...(scope ? { scope } : {}), ...follow })
    append(inputs, res.entries)
    const topics = adapter === 'memory-standard' ? topicsOf(payload) : null
    const name = adapter === 'memory-standard' ? 'MEMORY.md' : file ? path.basename(file) : undefined
    append(
      origins,
      res.entries.map((_, i) => {
        const line = res.locations[i] ?? undefined
        return { file: name, line, topic: topics?.get(line) }
      }),
    )
    append(
      warnings,
      (res.warnings ?? []).map((w) => ({ ...w, message: file ? `${path.basename(file)}: ${w.message}` : w.message })),
    )
  }
  if (!inputs.length) {
    const said = warnings.map((w) => `${w.line ? `line ${w.line}: ` : ''}${w.message}`).join('; ')
    const e = adapterPayload(adapter, `the payload contains no entries${said ? ` (${said})` : ''}`)
    e.details.warnings = warnings
    throw e
  }
  return { inputs, origins, warnings, from: { adapter } }
}
