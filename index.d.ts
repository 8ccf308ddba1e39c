// Public types of dsh-memento (hand-written; checked by `tsc --noEmit`).
// The native class is generated into native.d.ts; this file states the contract users code to.

/** `user` = facts about the user; `agent` = environment facts, conventions, lessons. */
export type Track = 'user' | 'agent'
/** `user-global` applies everywhere; `workspace` applies to one normalized cwd. */
export type Scope = 'user-global' | 'workspace'
/** Global write policy: recorded in audit labels; `off` refuses every write without asking. */
export type WritePolicy = 'ask' | 'auto' | 'off'
/** Approval outcomes the harness produces. Only `'allowed-once'` allows a write. */
export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | (string & {})

/** Every protocol error code. */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'WRITE_REQUIRES_AGENT'
  | 'BUDGET_EXCEEDED'
  | 'ENTRY_NOT_FOUND'
  | 'AMBIGUOUS_MATCH'
  | 'WRITE_DENIED'
  | 'PROPOSAL_NOT_FOUND'
  | 'STORE_CORRUPT'
  | 'STORE_UNSUPPORTED_VERSION'
  | 'ADAPTER_NOT_FOUND'
  | 'ADAPTER_PAYLOAD'

/** A protocol error: `code` is stable, `message` is English, `details` is JSON-safe. */
export interface MemoryError extends Error {
  code: ErrorCode
  details: Record<string, unknown>
}

/** One memory entry (key order as emitted). */
export interface MemoryEntry {
  id: string
  track: Track
  scope: Scope
  workspaceKey: string
  agentKey: string
  text: string
  source: string
  tags: string[]
  version: number
  createdAt: number
  updatedAt: number
  lastRecalled: number | null
  recallCount: number
  sessionId: string | null
}

/** What `add`/`seed` accept (adapters emit this). */
export interface EntryInput {
  track: Track
  scope: Scope
  text: string
  source?: string
  tags?: string[]
  /** Defaults to the writer session's cwd key for `workspace` entries; always `''` for `user-global`. */
  workspaceKey?: string
  /** Defaults to the writer session's agent preset key; `''` = the shared layer. */
  agentKey?: string
}

export interface ReplaceInput {
  track: Track
  scope: Scope
  /** Case-insensitive (ASCII) unique substring of the target's text, within the writer's visible set. */
  match: string
  text: string
  /** Omitted or null keeps the old tags; `[]` clears them. */
  tags?: string[] | null
  source?: string
  workspaceKey?: string
  agentKey?: string
}

export interface RemoveInput {
  track: Track
  scope: Scope
  match: string
  /** The writer's source: what a `writePolicies["source:…"]` setting keys on (default: the provider's `sourceLabel`). */
  source?: string
  workspaceKey?: string
  agentKey?: string
}

export interface ConsolidateInput {
  track: Track
  scope: Scope
  /** 1..20 unique substrings, each naming a different entry. */
  matches: string[]
  text: string
  tags?: string[]
  source?: string
  workspaceKey?: string
  agentKey?: string
}

/** The session that owns a write. `id` is required: writes without one are refused. */
export interface WriteSession {
  id: string
  header?: { cwd?: string; agentPreset?: string }
}

/** The write context every write method takes. */
export interface WriteContext {
  agent: { session: WriteSession; [key: string]: unknown }
  callId?: string
  signal?: AbortSignal
  /** Who writes (`command`, `panel`, `cli`, `memory-tool`, a plugin's name): what `writePolicies["source:…"]` keys on, whatever sources the entries carry (an import's do). Absent: the input's `source`, else the provider's `sourceLabel`. One line. */
  source?: string
}

/** An entry as an approval shows it: every field that lands. */
export interface ShownEntry {
  /** Absent for an entry the write creates. */
  id?: string
  /** Absent for an entry the write creates (it gets 1). */
  version?: number
  track: Track
  scope: Scope
  workspaceKey: string
  agentKey: string
  source: string
  tags: string[]
  text: string
}

/** What the approval callback is shown: the complete change, never an abstract action. */
export interface ApprovalPayload {
  action: 'add' | 'replace' | 'remove' | 'consolidate' | 'seed' | 'revert'
  /** `'batch'` for seed. */
  track: Track | 'batch'
  /** `'batch'` for seed. */
  scope: Scope | 'batch'
  /** The protocol's text: the new text (add), `from:\n{old}\n\nto:\n{new}` (replace), the removed text (remove), each target then the new text (consolidate), every entry (seed). */
  text: string
  /** Absent for seed. */
  source?: string
  /** Seed only: how many entries the batch holds. */
  count?: number
  /** What the approver should notice: instruction-like or heading-like text, invisible characters, a possible secret (under `secretPolicy: 'warn'`). */
  warnings?: string[]
  /** The entries (at these versions) the write changes; it commits only on exactly these. */
  targets?: { id: string; version: number }[]
  /** Every entry the write removes or rewrites, as it is now. */
  before: ShownEntry[]
  /** Every entry the write leaves (new or rewritten): exactly what lands. */
  after: ShownEntry[]
  /** add, replace, seed: up to three stored entries per new text that it likely duplicates or updates, best first. */
  similar?: Similar[]
  /** Seed only: the layers it adds to. */
  layers?: { track: Track; scope: Scope; workspaceKey: string; entries: number; chars: number }[]
  /** The policy that decides the write (from its layers and the writer's source) and the setting it came from; `off` never reaches a gate. */
  policy: { policy: WritePolicy; setting: string }
  /** The whole change as a person reads it: every entry with all of its fields, its text quoted line by line, control characters escaped. */
  reason: string
  /** SHA-256 of the change: a confirmation that names it commits exactly this change. */
  digest: string
  /** A revert's: the `seq` of the change it undoes. */
  reverts?: number
}

/** A stored entry a new text is like: a hint for the approver and the caller; the write is the same either way. */
export interface Similar {
  /** Seed only: the index of the new entry in the batch. */
  entry?: number
  id: string
  /** The stored text, whole. */
  text: string
  /** 0..1; a pair is named from 0.25 to 0.60 depending on what it shares (see docs/hygiene.md). */
  score: number
  /** `duplicate`: says the same; `update`: the same subject and attribute with another value (both advise replacing it); `related`: a stored entry is similar (no advice: it may be another fact). */
  relation: 'duplicate' | 'update' | 'related'
  /** Why, in words: "same words", "updates a number", … */
  reason: string
}

/** One write that makes room in a full layer, or fixes a health finding; it asks for approval like any other. */
export interface Suggestion {
  action: 'consolidate' | 'remove'
  why: string
  /** UTF-16 units it frees. */
  frees: number
  /** The entries it changes. */
  entries: { id: string; text: string }[]
  /** The input of `provider[action]`, as it stands. */
  input: ConsolidateInput | RemoveInput
}

/** `details` of a `BUDGET_EXCEEDED`. */
export interface BudgetExceededDetails {
  track: Track
  scope: Scope
  used: number
  limit: number
  needed: number
  /** Near-duplicate groups to consolidate, then the entries least worth keeping, until they free `needed - limit` (when the layer holds that much). */
  suggestions?: Suggestion[]
}

/** One finding of the health check. */
export interface HealthFinding {
  /** 12 hex digits, stable while the entries it names do not change. */
  id: string
  kind: 'duplicates' | 'updates' | 'stale' | 'missing-path' | 'secret' | 'oversized'
  track: Track
  scope: Scope
  workspaceKey: string
  agentKey: string
  entries: { id: string; version: number; text: string }[]
  detail: string
  fix?: Suggestion
}
export interface Health {
  /** Entries looked at. */
  checked: number
  findings: HealthFinding[]
}

/** The async approval callback. Anything but a resolved `'allowed-once'` is a denial. */
export type Gate = (payload: ApprovalPayload, write: WriteContext) => Promise<ApprovalOutcome> | ApprovalOutcome

export interface BudgetLimits {
  userGlobal: number
  workspace: number
}
export interface BudgetConfig {
  user: BudgetLimits
  agent: BudgetLimits
}

export interface ProviderOptions {
  /** Absolute path, or relative to `$DSH_HOME` (fallback `~/.dsh`); `''` = `<home>/dsh-memento/memory.db`. */
  dbPath?: string
  /** The approval transport. Required: there is no way to write without it. */
  gate: Gate
  /** Layer limits (defaults 2000/2000 user, 4000/4000 agent), or `'recorded'`: the limits a provider opened with `recordBudgets` recorded in this store (the CLI's default). */
  budgets?: { user?: Partial<BudgetLimits>; agent?: Partial<BudgetLimits> } | 'recorded'
  /** Record `budgets` in the store, so that `budgets: 'recorded'` (the CLI) uses the same limits (the plugin sets it). */
  recordBudgets?: boolean
  /** `ask` (default), `auto` or `off`: decided per write, from `writePolicies` first. */
  writePolicy?: WritePolicy
  /** Overrides keyed `"track/scope"` or `"source:<name>"` (the writer's source); a write touching several layers is decided by its strictest. */
  writePolicies?: Record<string, WritePolicy>
  /** Longest proposal text kept (2000); a longer one is cut, ending in `…`. */
  proposalMaxChars?: number
  /** Most pending proposals (8); `proposalAdd` records no more. */
  proposalMaxPending?: number
  /** Name the stored entries a new text is like in the approval of add, replace and seed (`similar`; default true). */
  similarHints?: boolean
  /** Default page size of `query` (20). */
  defaultQueryLimit?: number
  /** Source of entries whose input names none (`'dsh-memento'`). */
  sourceLabel?: string
  /** Audit rows older than this many days are pruned (0 = keep forever). */
  auditRetentionDays?: number
  /** Credential-looking text: `'refuse'` (default, `INVALID_INPUT` with `details.reason: 'secret'`) or `'warn'` (ask, with a payload warning). */
  secretPolicy?: 'refuse' | 'warn'
  /**
   * Says who carried the approval, for the audit `outcome` column, which the provider writes as
   * `"{outcome} (via {via}, {decider}[; {detail}])"`: `via` defaults to `approval`, `decider` to
   * `"{payload.policy.setting} {payload.policy.policy}"`. A string is the `via`. Called after the
   * gate with its outcome (and the payload the gate got); control characters are escaped. It
   * labels, never decides.
   */
  auditVia?: (outcome: string, payload: ApprovalPayload, write: WriteContext) => string | AuditVia
}

/** Who carried a write's approval (see `ProviderOptions.auditVia`). */
export interface AuditVia {
  /** The transport: `command`, `panel`, `cli --yes`, `mcp elicitation, client …`. */
  via?: string
  /** What decided, when not the write policy (`session approval policy never`). */
  decider?: string
  /** Why the transport failed, when it did. */
  detail?: string
}

export interface Usage {
  track: Track
  scope: Scope
  used: number
  limit: number
}
export type BudgetRow = Usage

/** One version of an entry, and the audit row that made it. */
export interface EntryVersion {
  version: number
  text: string
  tags: string[]
  track: Track
  scope: Scope
  workspaceKey: string
  agentKey: string
  source: string
  seq: number
  ts: number
  action: 'add' | 'replace' | 'consolidate-add' | 'adopt'
  outcome: string | null
  sessionId: string | null
  /** The `seq` of the change this version reverts. */
  reverts?: number
}
export interface History {
  entryId: string
  /** `false` when retention pruned the rows that created it: `versions[0]` is where it starts. */
  complete: boolean
  versions: EntryVersion[]
  /** The row that ended an entry that no longer exists (`into`: the entry a consolidate merged it into). */
  ended?: { seq: number; ts: number; action: 'remove' | 'consolidate-remove'; into?: string }
}
export interface RevertResult {
  reverted: number
  changes: { action: 'remove' | 'restore' | 'replace'; entry: MemoryEntry }[]
}
export interface SessionRecord {
  sessionId: string
  ts: number
  /** The keys it saw (`null`: recorded before they were). */
  workspaceKey: string | null
  agentKey: string | null
  /** The snapshot's length. */
  chars: number
  /** The exact snapshot text (asked for by `sessionId`). */
  text?: string
}
export interface QueryFilter {
  track?: Track
  scope?: Scope
  text?: string
  limit?: number
}
export interface QueryOptions {
  /** Records a `recalled` audit row for this session. */
  sessionId?: string
  /** Session visibility: the shared layer plus this agent's entries. */
  agentKey?: string
  /** Session visibility: `workspace` entries of this workspace only. */
  workspaceKey?: string
  /** `false` for management views: do not bump recall counters (default `true`). */
  countRecall?: boolean
  /** Exact facets, for management views (see `Only`). */
  only?: Only
}
/**
 * Exact facets of a listing — a management view's filter, not a session's visibility.
 * `workspaceKey`: only the workspace entries of this workspace, or (`''`) only the user-global
 * entries; `agentKey`: only this agent's entries, or (`''`) only the shared ones.
 */
export interface Only {
  track?: Track
  scope?: Scope
  workspaceKey?: string
  agentKey?: string
}
export interface QueryResult {
  entries: MemoryEntry[]
  total: number
  truncated: boolean
}

export interface AuditRow {
  seq: number
  ts: number
  action: string
  track: string | null
  scope: string | null
  entryId: string | null
  text: string | null
  outcome: string | null
  source: string | null
  sessionId: string | null
}

/** The result of walking the audit hash chain. */
export interface AuditVerification {
  ok: boolean
  /** Rows checked (from the retention checkpoint on). */
  checked: number
  /** Hash of the newest row: record it elsewhere to detect a rewritten chain. */
  head: string | null
  /** The first row that does not verify; for deleted newest rows, the `seq` the ledger's head recorded. */
  firstBroken: { seq: number; reason: string } | null
  /** Entries (layer, text, source, keys, tags), pending proposals and frozen snapshot texts against what the ledger recorded (`unverifiable`: their rows were pruned). */
  records: {
    checked: number
    unverifiable: number
    mismatched: { table: 'entries' | 'proposals' | 'snapshot_texts'; id: string; reason: string }[]
  }
  /** Layers whose recorded usage (what budgets enforce) is not the sum of their entries' lengths. */
  layers: { track: Track; scope: Scope; workspaceKey: string; recorded: number; actual: number }[]
}

export type ProposalStatus = 'pending' | 'approved' | 'dismissed'
export interface Proposal {
  id: string
  kind: string
  track: Track
  scope: Scope
  workspaceKey: string
  agentKey: string
  text: string
  source: string
  sessionId: string | null
  status: ProposalStatus
  createdAt: number
  decidedAt: number | null
}
export interface ProposalInput {
  kind: string
  track: Track
  scope: Scope
  text: string
  source?: string
  sessionId?: string | null
  workspaceKey?: string
  agentKey?: string
}

/** The native provider: every write goes through the gate, one transaction, one audit trail. */
/** The words of a snapshot (English by default); the plugin passes `strings(language)`. */
export interface SnapshotLabels {
  header?: string
  groups?: Partial<Record<'user/user-global' | 'user/workspace' | 'agent/user-global' | 'agent/workspace', string>>
  usageSuffix?: string
  /** Title of the pending-proposals section. */
  proposalsHeader?: string
}

export declare class MemoryProvider {
  constructor(options: ProviderOptions)
  /** Resolved absolute path of the store file. */
  readonly path: string
  /** The payload a write would ask approval for, without asking or writing (`approve`: a proposal id as input). */
  preview(action: ApprovalPayload['action'] | 'approve', input: unknown, write: WriteContext): ApprovalPayload
  /** `similar`: what its approval named, so the caller may clean up (absent when nothing is alike). */
  add(input: EntryInput, write: WriteContext): Promise<{ entry: MemoryEntry; usage: Usage; similar?: Similar[] }>
  replace(
    input: ReplaceInput,
    write: WriteContext,
  ): Promise<{ previous: MemoryEntry; entry: MemoryEntry; usage: Usage; similar?: Similar[] }>
  remove(input: RemoveInput, write: WriteContext): Promise<{ entry: MemoryEntry; usage: Usage }>
  consolidate(input: ConsolidateInput, write: WriteContext): Promise<{ removed: MemoryEntry[]; entry: MemoryEntry; usage: Usage }>
  seed(inputs: EntryInput[], write: WriteContext): Promise<{ added: number; entries: MemoryEntry[]; similar?: Similar[] }>
  query(filter?: QueryFilter, opts?: QueryOptions): QueryResult
  /** The stored entries an add of `input` would be told it is like (best first, at most three), with nothing planned and nobody asked; its `workspaceKey` and `agentKey` default to `''`. */
  similar(input: EntryInput): Similar[]
  /** Four rows, user/user-global, user/workspace, agent/user-global, agent/workspace. */
  budgets(opts?: { workspaceKey?: string }): BudgetRow[]
  /** Every entry, oldest first; `{agentKey, workspaceKey}` narrows it to a session's visible set, `only` to exact facets. */
  listEntries(opts?: { agentKey?: string; workspaceKey?: string; only?: Only }): MemoryEntry[]
  /** The entry `id`, or `null` when there is none. */
  entry(id: string): MemoryEntry | null
  /** Newest first; default 100. */
  auditList(limit?: number): AuditRow[]
  /**
   * The frozen-snapshot text of a session's visible set, grouped by layer with the usage its
   * writes are checked against; `''` when it sees nothing. Unless `maxProposals` is 0 (the
   * default), it ends with how many pending proposals the session sees and of which kinds — never
   * their text. Reads only (see `snapshotRecord`).
   */
  snapshot(keys?: { agentKey?: string; workspaceKey?: string }, labels?: SnapshotLabels, maxProposals?: number): string
  /**
   * Freeze a session's snapshot: the first text recorded for `sessionId` wins, is audited once
   * (`snapshot` row; the text is stored once per distinct text, with the keys of the visible set
   * it shows), and is returned on every later call — across reloads and processes.
   */
  snapshotRecord(sessionId: string, text: string, keys?: { agentKey?: string; workspaceKey?: string }): string
  /**
   * Every version of an entry the ledger holds, oldest first, and how it ended if it no longer
   * exists. `target`: an entry id, an audit `seq`, or `{match, track?, scope?}` resolved like
   * `replace`; `{agentKey, workspaceKey}`: only of what that session sees.
   */
  history(
    target: string | number | { match: string; track?: Track; scope?: Scope },
    opts?: { agentKey?: string; workspaceKey?: string },
  ): History
  /**
   * Undo the landed change audit row `seq` belongs to (a consolidate whole, a seed's batch by
   * its `seed` row, one entry by its own row, a revert: a redo), asked like any write with the
   * whole inverse change. Refused before asking (`ENTRY_NOT_FOUND`, `details.reason: 'changed'`)
   * when an entry changed since.
   */
  revert(seq: number, write: WriteContext): Promise<RevertResult>
  /** Recorded sessions, newest first; `{sessionId}`: that one, with the exact snapshot text it was given. */
  sessions(opts?: { sessionId?: string; limit?: number; agentKey?: string; workspaceKey?: string }): { sessions: SessionRecord[] }
  /**
   * The health check, per layer: near-duplicates, updates of one fact, entries not recalled for
   * `staleDays` (90), entries naming files gone from their workspace, credentials, oversized
   * entries; each with the gated write that fixes it. Reads only; `{agentKey, workspaceKey}`
   * narrows it to a session's visible set.
   */
  health(opts?: { staleDays?: number; agentKey?: string; workspaceKey?: string }): Health
  /** Walk the audit hash chain (to its recorded head) and check every entry and layer usage against it. */
  auditVerify(): AuditVerification
  /** Records a pending proposal (not a memory write; its text cut to `proposalMaxChars`); `null` if the session already has one of this kind, or `proposalMaxPending` are pending. */
  proposalAdd(input: ProposalInput): Proposal | null
  proposalList(status?: ProposalStatus, limit?: number): Proposal[]
  /** `approved` is a gated add (source `proposal`) committed with the decision; `dismissed` only decides. */
  proposalDecide(
    id: string,
    decision: 'approved' | 'dismissed',
    write: WriteContext,
  ): Promise<{ proposal: Proposal; entry?: MemoryEntry; usage?: Usage }>
  /** Idempotent. Later calls throw `STORE_CORRUPT` ("store is closed"). */
  close(): void
}

/** Protocol constants. */
export declare const PROTOCOL: 'dsh-memory-protocol/v1'
export declare const DEFAULT_BUDGETS: BudgetConfig
export declare const TRACKS: readonly Track[]
export declare const SCOPES: readonly Scope[]
/** Every protocol error code. */
export declare const ERROR_CODES: readonly ErrorCode[]
/** True for errors thrown by this package (they carry `code` and `details`). */
export declare function isMemoryError(e: unknown): e is MemoryError
/** `$DSH_HOME` (or `~/.dsh`) resolution of a store path, as the provider does it. */
export declare function resolveDbPath(dbPath?: string): string
/** The dsh home (`$DSH_HOME`, else `~/.dsh`), resolved as the store's path is: where dsh keeps its session logs. */
export declare function dshHome(): string
/** Normalized workspace key of a cwd (`''` when none). */
export declare function workspaceKeyOf(cwd: unknown): string
/** Normalized agent key of an agent preset (`''` when none). */
export declare function agentKeyOf(preset: unknown): string

/** Cordis plugin name (bundle row id `memento`). */
export declare const name: 'memento'
/** Services the plugin needs from the harness. */
export declare const inject: string[]
/** The plugin's Schemastery config schema (every key of the README's Configuration table). */
export declare const Config: unknown
/** Cordis entry point: registers `ctx.memory`, `ctx.memoryAdapters`, the tools, `/memory` and the snapshot. */
export declare function apply(ctx: unknown, config?: object): void
