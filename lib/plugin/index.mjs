// dsh-memento as a Cordis plugin: `name`, `inject`, `Config`, `apply` (no default export: the
// Loader would then require `inject` on it). Importing this module needs no dsh package:
// `@deepseek-ai/schemastery` is a peer loaded lazily by config.mjs (fallback: a Standard
// Schema with the same defaults/validation), and the provider comes from the native addon.
import { native } from '../native.mjs'
import { makeConfigSchema } from './config.mjs'
import { createApply } from './plugin.mjs'

export const name = 'memento'
export const inject = ['tools', 'systemPrompt', 'approval']
export const Config = makeConfigSchema()
export const apply = createApply(() => native)
