// Plugin configuration: defaults, load-time validation (exact messages of the reference) and
// the Cordis `Config` schema. Schemastery is a *peer* that only exists inside a dsh install, so
// it is loaded lazily with `createRequire` (its CJS build): library users who import
// `dsh-memento` on plain Node never need it. Without it, `Config` is a minimal Standard Schema
// object doing the same defaults + validation, which is all the Cordis Loader calls.
import { createRequire } from 'node:module'
import { invalidInput } from '../errors.mjs'

export const WRITE_POLICIES = Object.freeze(['ask', 'auto', 'off'])
export const LANGUAGES = Object.freeze(['en', 'zh'])
const POLICY_KEY = /^(?:(?:user|agent)\/(?:user-global|workspace)|source:[a-z0-9-]+)$/

/** Every key of the plugin config with its default (protocol-behaviour §7.2). */
export const DEFAULT_CONFIG = Object.freeze({
  enabled: true,
  dbPath: '',
  budgets: { user: { userGlobal: 2000, workspace: 2000 }, agent: { userGlobal: 4000, workspace: 4000 } },
  writePolicy: 'ask',
  writePolicies: {},
  language: 'en',
  snapshotOrder: -50,
  maxEntriesPerQuery: 20,
  commandListLimit: 50,
  commandAuditLimit: 10,
  recall: { historyLimitDefault: 8, snippetCap: 5, snippetChars: 300, windowDays: 30 },
  panelEntriesLimit: 200,
  panelAuditLimit: 20,
  auditRetentionDays: 0,
  secretPolicy: 'refuse',
  proposals: { enabled: true, maxChars: 2000, maxPending: 8 },
})

const invalid = (message) => invalidInput(message)

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const isPositiveInt = (v) => Number.isInteger(v) && v > 0

function merge(defaults, value) {
  if (!isObject(value)) return value === undefined ? structuredClone(defaults) : value
  const out = {}
  for (const [key, def] of Object.entries(defaults)) {
    out[key] = isObject(def) && Object.keys(def).length > 0 ? merge(def, value[key]) : value[key] === undefined ? structuredClone(def) : value[key]
  }
  for (const key of Object.keys(value)) if (!(key in out)) out[key] = value[key]
  return out
}

/** `writePolicies` table check (§5.6); throws INVALID_INPUT with the reference messages. */
export function validateWritePolicies(table) {
  if (!isObject(table)) throw invalid('writePolicies must be an object with keys like "user/workspace" or "source:claude"')
  for (const [key, value] of Object.entries(table)) {
    if (!POLICY_KEY.test(key)) throw invalid(`invalid writePolicies key ${JSON.stringify(key)} (expected "track/scope" or "source:<name>")`)
    if (!WRITE_POLICIES.includes(value)) throw invalid(`invalid writePolicies value for ${JSON.stringify(key)}: ${JSON.stringify(value)} (one of ask|auto|off)`)
  }
  return table
}

/**
 * Fill defaults and validate, in the reference order. `enabled: false` skips validation
 * (nothing is registered and nothing is opened). Throws INVALID_INPUT.
 */
export function resolveConfig(raw = {}) {
  const config = merge(DEFAULT_CONFIG, raw ?? {})
  if (typeof config.enabled !== 'boolean') throw invalid('dsh-memento config: enabled must be a boolean')
  if (!config.enabled) return config
  if (typeof config.dbPath !== 'string') throw invalid('dsh-memento config: dbPath must be a string')
  for (const track of ['user', 'agent']) {
    if (!isObject(config.budgets?.[track])) throw invalid(`dsh-memento config: budgets.${track} must be an object`)
    for (const key of ['userGlobal', 'workspace']) {
      if (!isPositiveInt(config.budgets[track][key])) throw invalid(`dsh-memento config: budgets.${track}.${key} must be a positive integer`)
    }
  }
  if (!WRITE_POLICIES.includes(config.writePolicy)) throw invalid(`invalid writePolicy ${JSON.stringify(config.writePolicy)} (one of ask|auto|off)`)
  validateWritePolicies(config.writePolicies)
  if (!LANGUAGES.includes(config.language)) throw invalid(`dsh-memento config: language must be 'en' or 'zh' (got ${JSON.stringify(config.language)})`)
  if (typeof config.snapshotOrder !== 'number' || !Number.isFinite(config.snapshotOrder)) throw invalid('dsh-memento config: snapshotOrder must be a finite number')
  for (const key of ['maxEntriesPerQuery', 'commandListLimit', 'commandAuditLimit']) {
    if (!isPositiveInt(config[key])) throw invalid(`dsh-memento config: ${key} must be a positive integer`)
  }
  for (const key of ['historyLimitDefault', 'snippetCap', 'snippetChars', 'windowDays']) {
    if (!isPositiveInt(config.recall?.[key])) throw invalid(`dsh-memento config: recall.${key} must be a positive integer`)
  }
  for (const key of ['panelEntriesLimit', 'panelAuditLimit']) {
    if (!isPositiveInt(config[key])) throw invalid(`dsh-memento config: ${key} must be a positive integer`)
  }
  if (!Number.isInteger(config.auditRetentionDays) || config.auditRetentionDays < 0) throw invalid('dsh-memento config: auditRetentionDays must be a non-negative integer')
  if (config.secretPolicy !== 'refuse' && config.secretPolicy !== 'warn') throw invalid(`dsh-memento config: secretPolicy must be 'refuse' or 'warn' (got ${JSON.stringify(config.secretPolicy)})`)
  if (typeof config.proposals?.enabled !== 'boolean') throw invalid('dsh-memento config: proposals.enabled must be a boolean')
  for (const key of ['maxChars', 'maxPending']) {
    if (!isPositiveInt(config.proposals[key])) throw invalid(`dsh-memento config: proposals.${key} must be a positive integer`)
  }
  return config
}

/** Load a peer lazily; `null` when it is not installed (library use outside dsh). */
export function optionalPeer(specifier, from = import.meta.url) {
  try {
    return createRequire(from)(specifier)
  } catch {
    return null
  }
}

function schemasteryConfig(Schema) {
  const int = (def, desc) => Schema.natural().min(1).default(def).description(desc)
  const policy = Schema.union(WRITE_POLICIES.map((p) => Schema.const(p)))
  return Schema.object({
    enabled: Schema.boolean().default(true).description('Master switch; false registers nothing and opens no store.'),
    dbPath: Schema.string().default('').description("Store path: absolute, or relative to $DSH_HOME; '' = $DSH_HOME/dsh-memento/memory.db."),
    budgets: Schema.object({
      user: Schema.object({ userGlobal: int(2000, 'user/user-global budget (chars)'), workspace: int(2000, 'user/workspace budget per workspace (chars)') }),
      agent: Schema.object({ userGlobal: int(4000, 'agent/user-global budget (chars)'), workspace: int(4000, 'agent/workspace budget per workspace (chars)') }),
    }).description('Hard character budgets per track x layer.'),
    writePolicy: policy.default('ask').description('ask = a human (or later answerer) decides; auto = allow; off = refuse every write.'),
    writePolicies: Schema.dict(policy).default({}).description('Overrides keyed "track/scope" or "source:<name>".'),
    language: Schema.union([Schema.const('en'), Schema.const('zh')]).default('en').description('Language of model- and user-visible text (errors stay English).'),
    snapshotOrder: Schema.number().default(-50).description('System-prompt section order of the frozen snapshot.'),
    maxEntriesPerQuery: int(20, 'Default query page size (hard cap 1000).'),
    commandListLimit: int(50, 'Entries shown by /memory list and query.'),
    commandAuditLimit: int(10, 'Rows shown by /memory audit.'),
    recall: Schema.object({
      historyLimitDefault: int(8, 'Sessions scanned by memory_recall.'),
      snippetCap: int(5, 'Snippets per session.'),
      snippetChars: int(300, 'Characters per snippet.'),
      windowDays: int(30, 'History window in days.'),
    }),
    panelEntriesLimit: int(200, 'Web panel entry page size.'),
    panelAuditLimit: int(20, 'Web panel audit rows.'),
    auditRetentionDays: Schema.natural().default(0).description('Audit retention in days; 0 keeps forever.'),
    secretPolicy: Schema.union([Schema.const('refuse'), Schema.const('warn')]).default('refuse').description('Credential-looking text: refuse the write, or ask with a warning in the approval request.'),
    proposals: Schema.object({
      enabled: Schema.boolean().default(true).description('Capture a pending proposal after each successful compaction.'),
      maxChars: int(2000, 'Proposal text cap.'),
      maxPending: int(8, 'Pending proposal cap.'),
    }),
  })
}

/** Standard Schema fallback with the same defaults and validation. */
function standardConfig() {
  return {
    '~standard': {
      version: 1,
      vendor: 'dsh-memento',
      validate(value) {
        try {
          return { value: resolveConfig(value) }
        } catch (error) {
          return { issues: [{ message: error.message }] }
        }
      },
    },
  }
}

/** The Cordis `Config`: Schemastery when the peer is installed, else the fallback. */
export function makeConfigSchema(peer = optionalPeer('@deepseek-ai/schemastery')) {
  const Schema = peer?.default ?? peer
  if (typeof Schema?.object === 'function') {
    try {
      return schemasteryConfig(Schema)
    } catch {
      /* incompatible schemastery: fall through */
    }
  }
  return standardConfig()
}
