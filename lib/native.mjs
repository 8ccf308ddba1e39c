// The native addon, loaded once for every module that needs it (the provider, and the rules the
// JS layer asks it for instead of keeping a copy: config, the credential screen).
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { bindingMissing } from './platform.mjs'

function loadNative() {
  try {
    return createRequire(import.meta.url)('../native.cjs')
  } catch (cause) {
    throw bindingMissing(cause, fileURLToPath(new URL('..', import.meta.url)))
  }
}

const addon = loadNative()
/** A rule of the core by name (src/api/rules.rs, and the binding's `rule`). */
const rule = (name) => (input) => addon.rule(name, input)

/** The native core of the provider (lib/provider.mjs wraps it), and the core's rules by name. */
export const native = Object.freeze({
  Native: addon.Native,
  rules: rule('rules'),
  resolveConfig: rule('resolveConfig'),
  screenEntries: rule('screenEntries'),
  resolveDbPath: rule('resolveDbPath'),
  dshHome: rule('dshHome'),
  workspaceKeyOf: rule('workspaceKeyOf'),
  agentKeyOf: rule('agentKeyOf'),
  visibleLines: rule('visibleLines'),
  visibleText: rule('visibleText'),
  adapterError: rule('adapterError'),
})

/** The protocol's enums and limits, as the core defines them (every JS surface reads them here). */
export const RULES = native.rules()
export const TRACKS = Object.freeze(RULES.tracks)
export const SCOPES = Object.freeze(RULES.scopes)
export const WRITE_POLICIES = Object.freeze(RULES.writePolicies)
/** The layer a write lands in when it names none. */
export const DEFAULT_LAYER = Object.freeze(RULES.defaultLayer)
/** The target layer of a write: `{track, scope}` as given, else the default layer's. */
export const writeLayer = (a) => ({ track: a.track ?? DEFAULT_LAYER.track, scope: a.scope ?? DEFAULT_LAYER.scope })
Object.freeze(RULES)
