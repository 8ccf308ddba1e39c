// Plugin configuration: the defaults and load-time validation are the addon's
// (`resolveConfig`, src/api/config.rs, the same rules the provider applies to its
// options); this file builds the Cordis `Config` schema over them. Schemastery is a *peer* that
// only exists inside a dsh install, so it is loaded lazily with `createRequire` (its CJS build):
// library users who import `dsh-memento` on plain Node never need it. Without it, `Config` is a
// minimal Standard Schema object doing the same resolution, which is all the Cordis Loader calls.
import { createRequire } from 'node:module'
import { native, WRITE_POLICIES } from './native.mjs'

const deepFreeze = (o) => (Object.values(o).forEach((v) => v && typeof v === 'object' && deepFreeze(v)), Object.freeze(o))

/** Every key of the plugin config with its default (protocol-behaviour §7.2). */
export const DEFAULT_CONFIG = deepFreeze(native.resolveConfig({}))

/**
 * Fill defaults and validate, in the reference order. `enabled: false` skips validation
 * (nothing is registered and nothing is opened). Throws INVALID_INPUT.
 */
export function resolveConfig(raw = {}) {
  return native.resolveConfig(raw)
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
  const D = DEFAULT_CONFIG
  const int = (def, desc) => Schema.natural().min(1).default(def).description(desc)
  const policy = Schema.union(WRITE_POLICIES.map((p) => Schema.const(p)))
  return Schema.object({
    enabled: Schema.boolean().default(D.enabled).description('Master switch; false registers nothing and opens no store.'),
    dbPath: Schema.string()
      .default(D.dbPath)
      .description("Store path: absolute, or relative to $DSH_HOME; '' = $DSH_HOME/dsh-memento/memory.db."),
    budgets: Schema.object({
      user: Schema.object({
        userGlobal: int(D.budgets.user.userGlobal, 'user/user-global budget (chars)'),
        workspace: int(D.budgets.user.workspace, 'user/workspace budget per workspace (chars)'),
      }),
      agent: Schema.object({
        userGlobal: int(D.budgets.agent.userGlobal, 'agent/user-global budget (chars)'),
        workspace: int(D.budgets.agent.workspace, 'agent/workspace budget per workspace (chars)'),
      }),
    }).description('Hard character budgets per track x layer.'),
    writePolicy: policy
      .default(D.writePolicy)
      .description('ask = a human (or later answerer) decides; auto = allow; off = refuse every write.'),
    writePolicies: Schema.dict(policy).default({}).description('Overrides keyed "track/scope" or "source:<name>".'),
    language: Schema.union([Schema.const('en'), Schema.const('zh')])
      .default(D.language)
      .description('Language of model- and user-visible text (errors stay English).'),
    snapshotOrder: Schema.number().default(D.snapshotOrder).description('System-prompt section order of the frozen snapshot.'),
    maxEntriesPerQuery: int(D.maxEntriesPerQuery, 'Default query page size (hard cap 1000).'),
    commandListLimit: int(D.commandListLimit, 'Entries shown by /memory list and query.'),
    commandAuditLimit: int(D.commandAuditLimit, 'Rows shown by /memory audit.'),
    recall: Schema.object({
      historyLimitDefault: int(D.recall.historyLimitDefault, 'Sessions scanned by memory_recall.'),
      snippetCap: int(D.recall.snippetCap, 'Snippets per session.'),
      snippetChars: int(D.recall.snippetChars, 'Characters per snippet.'),
      windowDays: int(D.recall.windowDays, 'History window in days.'),
    }),
    panelEntriesLimit: int(D.panelEntriesLimit, 'Web panel entry page size.'),
    panelAuditLimit: int(D.panelAuditLimit, 'Web panel audit rows.'),
    auditRetentionDays: Schema.natural().default(D.auditRetentionDays).description('Audit retention in days; 0 keeps forever.'),
    secretPolicy: Schema.union([Schema.const('refuse'), Schema.const('warn')])
      .default(D.secretPolicy)
      .description('Credential-looking text: refuse the write, or ask with a warning in the approval request.'),
    health: Schema.object({
      staleDays: int(D.health.staleDays, 'The health check (/memory doctor, the panel) reports entries not recalled for this many days.'),
    }),
    proposals: Schema.object({
      enabled: Schema.boolean().default(D.proposals.enabled).description('Capture a pending proposal after each successful compaction.'),
      maxChars: int(D.proposals.maxChars, 'Proposal text cap.'),
      maxPending: int(D.proposals.maxPending, 'Pending proposal cap.'),
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
