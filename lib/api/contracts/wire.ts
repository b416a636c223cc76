// Response shapes as clients see them, derived from the contracts (never written out by hand).
// Clients (the browser, the CLI, the test suites) parse bodies with parseJsonExact, so long
// integers under `*_ns` keys arrive as exact decimal strings: `Wire<T>` turns the contract's
// output type into that (bigint, and numbers under `*_ns` keys, become `Ns`), recursively.
// Type-only: importing this module pulls no server code into a bundle.
import type { z } from "zod";
import type { Contract } from "../contract";
import type { importAgentSight } from "./import";
import type { listForwarders } from "./forwarders";
import type { ingestCalls, ingestEvents } from "./ingest";
import type {
  agentCounts,
  bulkInterruptions,
  conversationCounts,
  countInterruptions,
  getInterruption,
  interruptionActivity,
  interruptionGroups,
  interruptionStats,
  interruptionTimeseries,
  resolveInterruption,
  sessionCounts,
} from "./interruptions";
import type { getCall, getSession, listAgents, listSessions, sessionCalls } from "./sessions";
import type { listSources } from "./sources";
import type { listMuteRules, listSnoozes, snoozeGroup } from "./snoozes";
import type { createToken, listTokens } from "./tokens";
import type { listUsers } from "./users";
import type { createWebhook, listDeliveries, listWebhooks, testWebhook } from "./webhooks";

/** Integer nanoseconds since the Unix epoch, as exact decimal text. */
export type Ns = string;

type NsValue<T> = T extends number | bigint ? Ns : Wire<T>;

/** A contract's output type as parsed by parseJsonExact: bigint and `*_ns` integers become `Ns`. */
export type Wire<T> = T extends bigint
  ? Ns
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: K extends `${string}_ns` ? NsValue<T[K]> : Wire<T[K]> }
      : T;

/** What a route answers, as a client sees it. */
export type ResponseOf<C extends Pick<Contract, "response">> = Wire<z.output<NonNullable<C["response"]>>>;

type Item<T> = T extends readonly (infer U)[] ? U : never;

// Interruptions (SPEC §5.1, §5.2)
export type InterruptionRecord = ResponseOf<typeof getInterruption>;
export type CountResponse = ResponseOf<typeof countInterruptions>;
export type SeverityCounts = CountResponse["by_severity"];
export type TypeCount = Item<ResponseOf<typeof interruptionStats>>;
export type SessionCount = Item<ResponseOf<typeof sessionCounts>>;
export type ConversationCount = Item<ResponseOf<typeof conversationCounts>>;
export type AgentCount = Item<ResponseOf<typeof agentCounts>>;
export type Activity = Item<ResponseOf<typeof interruptionActivity>>;
export type ResolveResult = ResponseOf<typeof resolveInterruption>;
export type BulkResult = ResponseOf<typeof bulkInterruptions>;
export type Timeseries = ResponseOf<typeof interruptionTimeseries>;
export type InterruptionGroup = Item<ResponseOf<typeof interruptionGroups>>;

// Snooze and mute (SPEC §4)
export type SnoozeRecord = Item<ResponseOf<typeof listSnoozes>>;
export type GroupSnoozeResult = ResponseOf<typeof snoozeGroup>;
export type MuteRuleRecord = Item<ResponseOf<typeof listMuteRules>>;

// Ingest
export type IngestResult = ResponseOf<typeof ingestCalls>;
export type IngestEventsResult = ResponseOf<typeof ingestEvents>;

// Sessions, calls, agents
export type SessionSummary = Item<ResponseOf<typeof listSessions>>;
export type OpenInterruptions = SessionSummary["open_interruptions"];
export type SessionDetail = ResponseOf<typeof getSession>;
export type CallSummary = Item<ResponseOf<typeof sessionCalls>>;
export type CallDetail = ResponseOf<typeof getCall>;
export type Agent = Item<ResponseOf<typeof listAgents>>;

// Administration
export type UserRecord = Item<ResponseOf<typeof listUsers>>;
export type TokenRecord = Item<ResponseOf<typeof listTokens>>;
export type CreatedToken = ResponseOf<typeof createToken>;
export type WebhookRecord = Item<ResponseOf<typeof listWebhooks>>;
export type CreatedWebhook = ResponseOf<typeof createWebhook>;
export type DeliveryRecord = Item<ResponseOf<typeof listDeliveries>>;
export type WebhookTestResult = ResponseOf<typeof testWebhook>;
export type ForwarderRecord = Item<ResponseOf<typeof listForwarders>>;
export type ImportStats = ResponseOf<typeof importAgentSight>;
export type SourceRecord = Item<ResponseOf<typeof listSources>>;
