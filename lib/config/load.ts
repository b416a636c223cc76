// The one configuration of SightDesk (SPEC §7): defaults ← optional JSON file ← environment.
//
// Keys are AgentSight's dotted keys. The JSON file may nest them ({"storage": {"interruptions":
// {"retention_days": 7}}}) or spell them flat ({"storage.interruptions.retention_days": 7}).
// File: `$SIGHTDESK_CONFIG` (must exist when set), else `$SIGHTDESK_DATA_DIR/config.json` when
// present. Environment: `SIGHTDESK_` + the key in upper case with each dot as `__`, e.g.
// `storage.interruptions.retention_days` ← `SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS`,
// `detection.severity.rate_limit` ← `SIGHTDESK_DETECTION__SEVERITY__RATE_LIMIT`. The legacy
// `SIGHTDESK_DETECTION_ENABLED` still works (below the canonical variable). Structured keys
// (`pricing.models`) take JSON text in their variable.
//
// Every value is validated with zod; an invalid or unknown key throws a ConfigError whose
// message names the key. The parsed configuration is cached: it changes on restart only.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_SEVERITY, INTERRUPTION_TYPES, SEVERITIES, type InterruptionType, type Severity } from "../domain/interruptions";
import { DEFAULT_PRICES, mergePrices, type ModelPrice, type PriceTable } from "../domain/pricing";
import { LOCAL_NETWORKS, parseCidr } from "../net/outbound";
import type { DetectionConfig } from "./detection";

export type SightDeskConfig = {
  detection: DetectionConfig;
  retentionDays: number;
  /** days InterruptionActivity rows (the audit trail) are kept; longer than interruptions */
  activityRetentionDays: number;
  maxDbSizeMb: number;
  checkIntervalSecs: number;
  staleTurnMinutes: number;
  deadloop: { enabled: boolean; killAfterCount: number };
  /** ranges outbound requests (webhooks, forwarders) may reach although not public: CIDR texts */
  outbound: { allowPrivate: string[] };
  /** peers whose X-Forwarded-For is believed (reverse proxies in front of the server): CIDR texts */
  server: { trustedProxies: string[] };
  /** the server-mounted proxy's extra or replaced upstreams (`NAME=URL`; /proxy/NAME/*) */
  proxy: { upstreams: string[] };
  /** where email alerts are sent from; null host: email alerts are off */
  smtp: SmtpConfig;
  /** USD per million tokens by model (the shipped defaults with `pricing.models` on top) */
  pricing: PriceTable;
  /** where values came from, for Settings: the file read (if any) and the keys set by the environment */
  source: { file: string | null; env: string[] };
};

/** The SMTP server email alerts go through (lib/alerts/mailer.ts). */
export type SmtpConfig = {
  host: string | null;
  port: number;
  /** TLS from the start (usually port 465); otherwise STARTTLS when the server offers it */
  secure: boolean;
  user: string | null;
  /** from SIGHTDESK_SMTP__PASSWORD only */
  password: string | null;
  /** the From address, e.g. "SightDesk <alerts@example.com>" */
  from: string | null;
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Kind = "bool" | "number" | "enum" | "list" | "json" | "string";
/** `envOnly`: a secret, read from its environment variable only (refused in the file). */
type KeySpec = { kind: Kind; schema: z.ZodType; expected: string; default: unknown; envOnly?: boolean };

const bool = (d: boolean): KeySpec => ({ kind: "bool", schema: z.boolean(), expected: "true or false", default: d });
const posInt = (d: number): KeySpec => ({ kind: "number", schema: z.number().int().positive(), expected: "a positive integer", default: d });
const nonNegInt = (d: number): KeySpec => ({ kind: "number", schema: z.number().int().nonnegative(), expected: "a non-negative integer", default: d });
const posNumber = (d: number): KeySpec => ({ kind: "number", schema: z.number().positive().finite(), expected: "a positive number", default: d });
const ratio = (d: number): KeySpec => ({ kind: "number", schema: z.number().gt(0).lte(1), expected: "a number greater than 0 and at most 1", default: d });
const severity = (d: Severity): KeySpec => ({
  kind: "enum",
  schema: z.enum(SEVERITIES),
  expected: `one of ${SEVERITIES.join(", ")}`,
  default: d,
});

/** Text (e.g. a host name); "" is the same as unset. */
const text = (expected: string, options: { envOnly?: boolean; max?: number } = {}): KeySpec => ({
  kind: "string",
  // a secret is taken as given (spaces may be part of a password)
  schema: options.envOnly ? z.string().max(options.max ?? 500) : z.string().trim().max(options.max ?? 500),
  expected,
  default: "",
  envOnly: options.envOnly,
});
const port = (d: number): KeySpec => ({ kind: "number", schema: z.number().int().min(1).max(65_535), expected: "a port number (1 to 65535)", default: d });

const isCidr = (v: string) => {
  try {
    parseCidr(v);
    return true;
  } catch {
    return false;
  }
};
/** A list of CIDR ranges: a JSON array in the file, a comma list in the environment. */
const cidrList = (d: string[]): KeySpec => ({
  kind: "list",
  schema: z.array(z.string().trim().refine(isCidr)).max(1000),
  expected: 'a list of CIDR ranges (e.g. ["10.0.0.0/8", "fd00::/8"]; in the environment: 10.0.0.0/8,fd00::/8, or none)',
  default: d,
});

/** `NAME=URL` with an http(s) URL without credentials, query or fragment (lib/proxy/routes.ts parses it). */
const upstreamOk = (v: string) => {
  const m = /^([a-z0-9][a-z0-9_-]{0,63})=(https?:\/\/.+)$/i.exec(v);
  if (!m) return false;
  try {
    const u = new URL(m[2]);
    return !u.username && !u.password && !u.search && !u.hash;
  } catch {
    return false;
  }
};
/** `NAME=URL` upstreams: a JSON array in the file, a comma list in the environment. */
const upstreamList = (d: string[]): KeySpec => ({
  kind: "list",
  schema: z.array(z.string().trim().refine(upstreamOk)).max(100),
  expected: 'a list of NAME=URL upstreams (e.g. ["deepseek=https://api.deepseek.com"]; in the environment: openai=http://127.0.0.1:9000,deepseek=https://api.deepseek.com)',
  default: d,
});

/** USD per million tokens: not negative, finite. */
const usd = z.number({ error: "expected a number (USD per million tokens)" }).nonnegative("must not be negative").finite();
const modelPrice = z.strictObject({ input: usd, output: usd, cache_read: usd.optional(), cache_write: usd.optional() });
/**
 * Model prices: an object of model name → {input, output, cache_read?, cache_write?} (USD per
 * million tokens; cache prices default to the input price), or null to remove a shipped price.
 * In the environment: the same object as JSON text.
 */
const priceOverrides = (): KeySpec => ({
  kind: "json",
  schema: z.record(z.string().trim().min(1).max(200), modelPrice.nullable()).refine((o) => Object.keys(o).length <= 1000, "at most 1000 models"),
  expected: 'an object of model → {"input": n, "output": n, "cache_read"?: n, "cache_write"?: n} in USD per million tokens, or null to drop a default',
  default: {},
});

/** Every key SightDesk reads, with its type and default (SPEC §3 and §7). */
export const CONFIG_KEYS: Record<string, KeySpec> = {
  "features.interruption_detection.enabled": bool(true),
  "storage.interruptions.retention_days": posInt(30),
  "storage.activity.retention_days": posInt(365),
  max_db_size_mb: posInt(100),
  check_interval_secs: posInt(60),
  "deadloop.enabled": bool(false),
  "deadloop.kill_after_count": posInt(3),
  "sweeps.stale_turn_minutes": posInt(30),
  "outbound.allow_private": cidrList([]),
  "server.trusted_proxies": cidrList(LOCAL_NETWORKS),
  "proxy.upstreams": upstreamList([]),
  "smtp.host": text("a host name or address"),
  "smtp.port": port(587),
  "smtp.secure": bool(false),
  "smtp.user": text("a user name"),
  "smtp.password": text("a password", { envOnly: true, max: 1000 }),
  "smtp.from": text('an address, e.g. "SightDesk <alerts@example.com>"'),
  "pricing.models": priceOverrides(),
  "detection.token_limit_ratio": ratio(0.95),
  "detection.context_overflow_input_factor": posNumber(4),
  "detection.sse_truncated_min_ms": nonNegInt(1000),
  "detection.slow_response_ms": posInt(120_000),
  "detection.retry_storm_count": posInt(5),
  "detection.loop.window": posInt(10),
  "detection.loop.tool_repeat": posInt(5),
  "detection.loop.similarity_count": posInt(3),
  "detection.loop.similarity": ratio(0.85),
  "detection.loop.token_burn_calls": posInt(5),
  "detection.loop.busy_wait_calls": posInt(10),
  ...Object.fromEntries(INTERRUPTION_TYPES.map((t) => [`detection.severity.${t}`, severity(DEFAULT_SEVERITY[t])])),
};

/** `storage.interruptions.retention_days` → `SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS`. */
export const envName = (key: string) => `SIGHTDESK_${key.toUpperCase().replace(/\./g, "__")}`;

const LEGACY_ENV: Record<string, string> = { SIGHTDESK_DETECTION_ENABLED: "features.interruption_detection.enabled" };

/** Other spellings of a key, in the file and as variables (AgentSight nests these under storage.interruptions). */
export const KEY_ALIASES: Record<string, string> = {
  "storage.interruptions.max_db_size_mb": "max_db_size_mb",
  "storage.interruptions.check_interval_secs": "check_interval_secs",
};

type Raw = { value: unknown; from: string };

/** Flattens nested objects to dotted keys; objects under a key that is itself a leaf are left whole. */
function flatten(obj: Record<string, unknown>, prefix: string, out: Map<string, Raw>, from: string): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !(key in CONFIG_KEYS)) flatten(v as Record<string, unknown>, key, out, from);
    else out.set(key, { value: v, from });
  }
}

function fromEnvText(spec: KeySpec, text: string): unknown {
  if (spec.kind === "string") return text;
  const t = text.trim();
  if (spec.kind === "list") return t.toLowerCase() === "none" ? [] : t.split(",").map((x) => x.trim()).filter(Boolean); // an empty variable is unset
  if (spec.kind === "json") {
    try {
      return JSON.parse(t);
    } catch {
      return text; // reported as not of the expected shape
    }
  }
  if (spec.kind === "enum") return t.toLowerCase();
  if (spec.kind === "bool") {
    const lower = t.toLowerCase();
    if (["true", "1", "yes", "on"].includes(lower)) return true;
    if (["false", "0", "no", "off"].includes(lower)) return false;
    return text;
  }
  return t === "" || Number.isNaN(Number(t)) ? text : Number(t);
}

export type LoadOptions = {
  env?: NodeJS.ProcessEnv;
  /** the config file to read; default: $SIGHTDESK_CONFIG, else $SIGHTDESK_DATA_DIR/config.json when present */
  file?: string | null;
};

function configFile(env: NodeJS.ProcessEnv): { file: string | null; required: boolean } {
  if (env.SIGHTDESK_CONFIG) return { file: path.resolve(env.SIGHTDESK_CONFIG), required: true };
  const candidate = path.join(path.resolve(env.SIGHTDESK_DATA_DIR || "./data"), "config.json");
  return { file: fs.existsSync(candidate) ? candidate : null, required: false };
}

function readFile(file: string): Map<string, Raw> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError(`config file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${file}: not valid JSON (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError(`config file ${file}: expected a JSON object`);
  const out = new Map<string, Raw>();
  flatten(parsed as Record<string, unknown>, "", out, file);
  return out;
}

/** Reads and validates the configuration (no cache: `config()` caches it). */
export function loadConfig(options: LoadOptions = {}): SightDeskConfig {
  const env = options.env ?? process.env;
  const located = options.file === undefined ? configFile(env) : { file: options.file, required: options.file !== null };
  const raw = new Map<string, Raw>();
  const errors: string[] = [];
  if (located.file) {
    for (const [given, v] of readFile(located.file)) {
      const key = KEY_ALIASES[given] ?? given;
      if (!(key in CONFIG_KEYS)) errors.push(`${given}: unknown configuration key (in ${located.file})`);
      else if (CONFIG_KEYS[key].envOnly) errors.push(`${given}: a secret, read only from ${envName(key)} (remove it from ${located.file})`);
      else raw.set(key, v);
    }
  }
  const envKeys: string[] = [];
  const aliasEnv = Object.fromEntries(Object.entries(KEY_ALIASES).map(([alias, key]) => [envName(alias), key]));
  for (const [name, key] of Object.entries({ ...LEGACY_ENV, ...aliasEnv })) {
    const text = env[name];
    if (text !== undefined && text !== "") raw.set(key, { value: fromEnvText(CONFIG_KEYS[key], text), from: name });
  }
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const name = envName(key);
    const text = env[name];
    if (text === undefined || text === "") continue;
    raw.set(key, { value: fromEnvText(spec, text), from: name });
    envKeys.push(key);
  }

  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const given = raw.get(key);
    if (!given) {
      values[key] = spec.default;
      continue;
    }
    const parsed = spec.schema.safeParse(given.value);
    if (parsed.success) values[key] = parsed.data;
    else if (spec.kind === "json") errors.push(...jsonErrors(key, parsed.error, given));
    else errors.push(`${key}: expected ${spec.expected}, got ${spec.envOnly ? "something else" : JSON.stringify(given.value)} (from ${given.from})`);
  }
  const window = values["detection.loop.window"] as number;
  for (const k of ["tool_repeat", "similarity_count", "token_burn_calls", "busy_wait_calls"]) {
    const key = `detection.loop.${k}`;
    if (!errors.some((e) => e.startsWith(key)) && (values[key] as number) > window) {
      errors.push(`${key}: must not exceed detection.loop.window (${window}), or the rule can never fire`);
    }
  }
  const smtpText = (key: string) => (values[key] as string) || null;
  if (smtpText("smtp.host") && !smtpText("smtp.from") && !errors.some((e) => e.startsWith("smtp."))) {
    errors.push("smtp.from: required when smtp.host is set (the From address of email alerts)");
  }
  if (errors.length) throw new ConfigError(`invalid configuration:\n  ${errors.join("\n  ")}`);

  const n = (key: string) => values[key] as number;
  const detection: DetectionConfig = {
    enabled: values["features.interruption_detection.enabled"] as boolean,
    tokenLimitRatio: n("detection.token_limit_ratio"),
    contextOverflowInputFactor: n("detection.context_overflow_input_factor"),
    sseTruncatedMinMs: n("detection.sse_truncated_min_ms"),
    slowResponseMs: n("detection.slow_response_ms"),
    retryStormCount: n("detection.retry_storm_count"),
    loop: {
      window,
      toolRepeat: n("detection.loop.tool_repeat"),
      similarityCount: n("detection.loop.similarity_count"),
      similarity: n("detection.loop.similarity"),
      tokenBurnCalls: n("detection.loop.token_burn_calls"),
      busyWaitCalls: n("detection.loop.busy_wait_calls"),
    },
    severity: Object.fromEntries(INTERRUPTION_TYPES.map((t) => [t, values[`detection.severity.${t}`] as Severity])) as Record<InterruptionType, Severity>,
  };
  return {
    detection,
    retentionDays: n("storage.interruptions.retention_days"),
    activityRetentionDays: n("storage.activity.retention_days"),
    maxDbSizeMb: n("max_db_size_mb"),
    checkIntervalSecs: n("check_interval_secs"),
    staleTurnMinutes: n("sweeps.stale_turn_minutes"),
    deadloop: { enabled: values["deadloop.enabled"] as boolean, killAfterCount: n("deadloop.kill_after_count") },
    outbound: { allowPrivate: values["outbound.allow_private"] as string[] },
    server: { trustedProxies: values["server.trusted_proxies"] as string[] },
    proxy: { upstreams: values["proxy.upstreams"] as string[] },
    smtp: {
      host: smtpText("smtp.host"),
      port: n("smtp.port"),
      secure: values["smtp.secure"] as boolean,
      user: smtpText("smtp.user"),
      password: smtpText("smtp.password"),
      from: smtpText("smtp.from"),
    },
    pricing: pricingTable(values["pricing.models"] as Record<string, PriceOverride | null>),
    source: { file: located.file, env: envKeys },
  };
}

/** Errors of a structured value, each naming the key and the path inside it: `pricing.models["gpt-4o"].input: …`. */
function jsonErrors(key: string, error: z.ZodError, given: Raw): string[] {
  const step = (p: PropertyKey) => (typeof p === "number" ? `[${p}]` : /^[a-z_]\w*$/i.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`);
  const at = (path: PropertyKey[]) => path.map(step).join("");
  if (typeof given.value === "string") return [`${key}: expected JSON text of ${CONFIG_KEYS[key].expected} (from ${given.from})`];
  return error.issues.slice(0, 5).map((i) => `${key}${at(i.path)}: ${i.path.length ? i.message : `expected ${CONFIG_KEYS[key].expected}`} (from ${given.from})`);
}

type PriceOverride = { input: number; output: number; cache_read?: number; cache_write?: number };

/** The shipped prices with the configured ones on top (cache prices default to the input price). */
function pricingTable(overrides: Record<string, PriceOverride | null>): PriceTable {
  const full: Record<string, ModelPrice | null> = {};
  for (const [model, o] of Object.entries(overrides)) full[model] = o && { input: o.input, output: o.output, cache_read: o.cache_read ?? o.input, cache_write: o.cache_write ?? o.input };
  return mergePrices(DEFAULT_PRICES, full);
}

/** The defaults alone (no file, no environment). */
export const configDefaults = (): SightDeskConfig => loadConfig({ env: {} as NodeJS.ProcessEnv, file: null });

// Kept on globalThis: Next.js may load this module more than once per process.
const CACHE = Symbol.for("sightdesk.config");
type WithConfig = { [CACHE]?: SightDeskConfig };

/** The process-wide configuration, read once (restart to reload). Throws ConfigError when invalid. */
export function config(): SightDeskConfig {
  const holder = globalThis as WithConfig;
  return (holder[CACHE] ??= loadConfig());
}

/** Forgets the cached configuration (tests). */
export function resetConfigCache(): void {
  delete (globalThis as WithConfig)[CACHE];
}
