// dsh-memento as a Cordis plugin: `name`, `inject`, `Config`, `apply` (no default export: the
// Loader would then require `inject` on it). Importing this module needs no dsh package:
// `@deepseek-ai/schemastery` is a peer loaded lazily by ../config.mjs (fallback: a Standard
// Schema with the same defaults/validation), and the provider comes from the native addon.
import * as provider from '../provider.mjs'
import { makeConfigSchema } from '../config.mjs'
import { createApply } from './apply.mjs'

export const name = 'memento'
// Only what dsh-base itself provides to every profile: the agent's tool registry and system
// prompt. Every other service is optional and read when used (`approval` at each write: none
// means the write is refused `unavailable`; `commands`, `webServer`, `agents`, `sessions`,
// `sessionQuery`, `connection`), so the plugin mounts in any profile (`web`, `headless`, a
// desktop shell's own) whatever else its layers hold.
export const inject = ['tools', 'systemPrompt']
export const Config = makeConfigSchema()
export const apply = createApply(() => provider)
