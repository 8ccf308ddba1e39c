// Built-in adapters and a registry factory.

import { claudeCodeAdapter } from './claude-code.mjs'
import { hermesAdapter } from './hermes.mjs'
import { mem0Adapter } from './mem0.mjs'
import { memoryStandardAdapter } from './memory-standard.mjs'
import { MemoryAdapterRegistry } from './registry.mjs'

export { MemoryAdapterRegistry } from './registry.mjs'
export { claudeCodeAdapter, hermesAdapter, mem0Adapter, memoryStandardAdapter }

/** The four built-in adapters, sorted by id. */
export const BUILTIN_ADAPTERS = Object.freeze([claudeCodeAdapter, hermesAdapter, mem0Adapter, memoryStandardAdapter])

/**
 * A registry with the built-in adapters registered.
 * @returns {MemoryAdapterRegistry}
 */
export function createDefaultRegistry() {
  const registry = new MemoryAdapterRegistry()
  for (const a of BUILTIN_ADAPTERS) registry.register(a)
  return registry
}
