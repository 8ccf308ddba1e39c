// The adapter registry (`ctx.memoryAdapters` in the plugin; the CLI builds its own).

import { adapterNotFound, invalidInput, isMemoryError, memoryError } from '../errors.mjs'

/**
 * @typedef {object} AdaptResult
 * @property {import('../../index.d.ts').EntryInput[]} entries what `seed` will receive
 * @property {{line?: number, message: string}[]} warnings things that were reported instead of mapped
 * @property {(number|null)[]} locations source line of each entry, when known (same order)
 */

/**
 * @typedef {object} MemoryAdapter A pure converter: no I/O, no model, no store access.
 * @property {string} id lowercase kebab-case, e.g. `mem0`
 * @property {string} name
 * @property {string} description what it reads/writes and what a round trip loses
 * @property {string} version
 * @property {string[]} importFormats
 * @property {string} exportFormat
 * @property {(payload: unknown, options?: object) => {entries: object[], warnings?: object[], locations?: (number|null)[]}} adapt
 * @property {(entries: import('../../index.d.ts').MemoryEntry[], options?: object) => unknown} export JSON-safe result
 */

const ID = /^[a-z0-9][a-z0-9-]*$/
const nonEmpty = (v) => typeof v === 'string' && v.trim() !== ''

function validate(a) {
  if (a === null || typeof a !== 'object') throw invalidInput('memory adapter must be an object')
  if (typeof a.id !== 'string' || !ID.test(a.id)) throw invalidInput('memory adapter id must be a lowercase kebab-case string')
  if (!nonEmpty(a.name)) throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs a non-empty name`)
  if (!nonEmpty(a.description)) throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs a non-empty description`)
  if (!nonEmpty(a.version)) throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs a non-empty version string`)
  if (!Array.isArray(a.importFormats) || a.importFormats.length === 0 || !a.importFormats.every(nonEmpty)) {
    throw invalidInput(`memory adapter ${JSON.stringify(a.id)} importFormats must be a non-empty string array`)
  }
  if (!nonEmpty(a.exportFormat)) throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs a non-empty exportFormat`)
  if (typeof a.adapt !== 'function') throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs an adapt(payload) function`)
  if (typeof a.export !== 'function') throw invalidInput(`memory adapter ${JSON.stringify(a.id)} needs an export(entries) function`)
}

const wrap = (id, verb, e) =>
  isMemoryError(e)
    ? e
    : memoryError('ADAPTER_PAYLOAD', `adapter ${JSON.stringify(id)}: ${verb} failed: ${e?.message ?? String(e)}`, { adapterId: id })

/**
 * Holds adapters by id. Errors: `INVALID_INPUT` (malformed or duplicate adapter),
 * `ADAPTER_NOT_FOUND` (unknown id), `ADAPTER_PAYLOAD` (the converter failed; `details.line` when known).
 */
export class MemoryAdapterRegistry {
  #adapters = new Map()

  /**
   * Register an adapter. Returns a disposer that removes it (only if it is still this object).
   * @param {MemoryAdapter} adapter
   * @returns {() => void}
   */
  register(adapter) {
    validate(adapter)
    if (this.#adapters.has(adapter.id)) throw invalidInput(`memory adapter ${JSON.stringify(adapter.id)} is already registered`)
    this.#adapters.set(adapter.id, adapter)
    return () => {
      if (this.#adapters.get(adapter.id) === adapter) this.#adapters.delete(adapter.id)
    }
  }

  /** Descriptors `{id, name, description, version, importFormats, exportFormat}`, sorted by id. */
  list() {
    return [...this.#adapters.values()]
      .map(({ id, name, description, version, importFormats, exportFormat }) => ({
        id,
        name,
        description,
        version,
        importFormats: [...importFormats],
        exportFormat,
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
  }

  /** The adapter object, or `undefined`. */
  get(id) {
    return this.#adapters.get(id)
  }

  #require(id) {
    const a = this.#adapters.get(id)
    if (!a) throw adapterNotFound(id)
    return a
  }

  /**
   * Convert a foreign payload to entry inputs. Nothing is written.
   * @param {string} id
   * @param {unknown} payload text, parsed JSON, or `{files}` / `{text}` objects (see each adapter)
   * @param {object} [options] adapter options, e.g. `{track, scope, file}`
   * @returns {AdaptResult}
   */
  adapt(id, payload, options) {
    const a = this.#require(id)
    let out
    try {
      out = a.adapt(payload, options)
    } catch (e) {
      throw wrap(id, 'adapt', e)
    }
    const entries = Array.isArray(out) ? out : out?.entries
    if (!Array.isArray(entries))
      throw memoryError('ADAPTER_PAYLOAD', `adapter ${JSON.stringify(id)}: adapt must return {entries: [...]}`, { adapterId: id })
    const warnings = Array.isArray(out?.warnings) ? out.warnings : []
    const locations = Array.isArray(out?.locations) ? out.locations : entries.map(() => null)
    return { entries, warnings, locations }
  }

  /**
   * Convert entries to the adapter's format (a JSON-safe value; text formats return `{text}` or `{files}`).
   * @param {string} id
   * @param {import('../../index.d.ts').MemoryEntry[]} entries
   * @param {object} [options]
   */
  export(id, entries, options) {
    const a = this.#require(id)
    try {
      return a.export(entries, options)
    } catch (e) {
      throw wrap(id, 'export', e)
    }
  }
}
