// The configuration loader: defaults ← JSON file ← environment, validation naming the key,
// and a severity override reaching a detected interruption.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_DETECTION } from "@/lib/config/detection";
import { ConfigError, configDefaults, envName, loadConfig } from "@/lib/config/load";
import { buildInterruption } from "@/lib/ingest/interruptions";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-config-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: unknown): string {
  const f = path.join(dir, `c${++n}.json`);
  fs.writeFileSync(f, typeof content === "string" ? content : JSON.stringify(content));
  return f;
}
const env = (vars: Record<string, string> = {}) => ({ ...vars }) as NodeJS.ProcessEnv;

describe("configuration", () => {
  it("has the AgentSight and SPEC §3 defaults", () => {
    const c = loadConfig({ env: env(), file: null });
    expect(c.detection.enabled).toBe(true);
    expect(c.retentionDays).toBe(30);
    expect(c.activityRetentionDays).toBe(365);
    expect(c.maxDbSizeMb).toBe(100);
    expect(c.checkIntervalSecs).toBe(60);
    expect(c.staleTurnMinutes).toBe(30);
    expect(c.deadloop).toEqual({ enabled: false, killAfterCount: 3 });
    expect(c.detection).toEqual(DEFAULT_DETECTION);
    expect(c.detection.slowResponseMs).toBe(120_000);
    expect(c.detection.loop).toEqual({ window: 10, toolRepeat: 5, similarityCount: 3, similarity: 0.85, tokenBurnCalls: 5, busyWaitCalls: 10 });
    expect(c.detection.severity.rate_limit).toBe("medium");
    expect(c.source).toEqual({ file: null, env: [] });
  });

  it("maps keys to environment variable names", () => {
    expect(envName("storage.interruptions.retention_days")).toBe("SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS");
    expect(envName("max_db_size_mb")).toBe("SIGHTDESK_MAX_DB_SIZE_MB");
    expect(envName("storage.activity.retention_days")).toBe("SIGHTDESK_STORAGE__ACTIVITY__RETENTION_DAYS");
    expect(envName("detection.severity.rate_limit")).toBe("SIGHTDESK_DETECTION__SEVERITY__RATE_LIMIT");
  });

  it("reads a JSON file, nested or with dotted keys", () => {
    const f = file({
      features: { interruption_detection: { enabled: false } },
      storage: { interruptions: { retention_days: 7 }, activity: { retention_days: 400 } },
      max_db_size_mb: 50,
      "deadloop.enabled": true,
      deadloop: { kill_after_count: 5 },
      detection: { slow_response_ms: 60_000, loop: { window: 12 }, severity: { rate_limit: "high" } },
      sweeps: { stale_turn_minutes: 45 },
    });
    const c = loadConfig({ env: env(), file: f });
    expect(c.detection.enabled).toBe(false);
    expect(c.retentionDays).toBe(7);
    expect(c.activityRetentionDays).toBe(400);
    expect(c.maxDbSizeMb).toBe(50);
    expect(c.deadloop).toEqual({ enabled: true, killAfterCount: 5 });
    expect(c.detection.slowResponseMs).toBe(60_000);
    expect(c.detection.loop.window).toBe(12);
    expect(c.detection.severity.rate_limit).toBe("high");
    expect(c.staleTurnMinutes).toBe(45);
    expect(c.checkIntervalSecs).toBe(60);
    expect(c.source.file).toBe(f);
  });

  it("finds the file through SIGHTDESK_CONFIG or the data directory", () => {
    const f = file({ check_interval_secs: 15 });
    expect(loadConfig({ env: env({ SIGHTDESK_CONFIG: f }) }).checkIntervalSecs).toBe(15);
    const dataDir = fs.mkdtempSync(path.join(dir, "data-"));
    expect(loadConfig({ env: env({ SIGHTDESK_DATA_DIR: dataDir }) }).source.file).toBeNull();
    fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ check_interval_secs: 20 }));
    expect(loadConfig({ env: env({ SIGHTDESK_DATA_DIR: dataDir }) }).checkIntervalSecs).toBe(20);
    expect(() => loadConfig({ env: env({ SIGHTDESK_CONFIG: path.join(dir, "missing.json") }) })).toThrow(/missing\.json: cannot be read/);
  });

  it("lets the environment override the file", () => {
    const f = file({ storage: { interruptions: { retention_days: 7 } }, max_db_size_mb: 50, detection: { severity: { tool_failure: "low" } } });
    const c = loadConfig({
      env: env({
        SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "3",
        SIGHTDESK_STORAGE__ACTIVITY__RETENTION_DAYS: "90",
        SIGHTDESK_FEATURES__INTERRUPTION_DETECTION__ENABLED: "false",
        SIGHTDESK_DETECTION__LOOP__SIMILARITY: "0.9",
        SIGHTDESK_DETECTION__SEVERITY__TOOL_FAILURE: "Critical",
      }),
      file: f,
    });
    expect(c.retentionDays).toBe(3);
    expect(c.activityRetentionDays).toBe(90);
    expect(c.maxDbSizeMb).toBe(50);
    expect(c.detection.enabled).toBe(false);
    expect(c.detection.loop.similarity).toBe(0.9);
    expect(c.detection.severity.tool_failure).toBe("critical");
    expect(c.source.env.sort()).toEqual(
      ["detection.loop.similarity", "detection.severity.tool_failure", "features.interruption_detection.enabled", "storage.activity.retention_days", "storage.interruptions.retention_days"].sort(),
    );
  });

  it("accepts AgentSight's spelling of the size cap and interval under storage.interruptions", () => {
    const f = file({ storage: { interruptions: { retention_days: 7, max_db_size_mb: 250, check_interval_secs: 30 } } });
    expect(loadConfig({ env: env(), file: f })).toMatchObject({ retentionDays: 7, maxDbSizeMb: 250, checkIntervalSecs: 30 });
    const fromEnv = loadConfig({ env: env({ SIGHTDESK_STORAGE__INTERRUPTIONS__MAX_DB_SIZE_MB: "20", SIGHTDESK_STORAGE__INTERRUPTIONS__CHECK_INTERVAL_SECS: "5" }), file: null });
    expect(fromEnv).toMatchObject({ maxDbSizeMb: 20, checkIntervalSecs: 5 });
    // the short name wins over the alias
    expect(loadConfig({ env: env({ SIGHTDESK_STORAGE__INTERRUPTIONS__MAX_DB_SIZE_MB: "20", SIGHTDESK_MAX_DB_SIZE_MB: "40" }), file: null }).maxDbSizeMb).toBe(40);
    expect(() => loadConfig({ env: env({ SIGHTDESK_STORAGE__INTERRUPTIONS__MAX_DB_SIZE_MB: "-1" }), file: null })).toThrow(/max_db_size_mb: expected a positive integer.*SIGHTDESK_STORAGE__INTERRUPTIONS__MAX_DB_SIZE_MB/);
  });

  it("keeps the legacy SIGHTDESK_DETECTION_ENABLED", () => {
    expect(loadConfig({ env: env({ SIGHTDESK_DETECTION_ENABLED: "0" }), file: null }).detection.enabled).toBe(false);
  });

  it("applies a severity override to a detected interruption", () => {
    const c = loadConfig({ env: env({ SIGHTDESK_DETECTION__SEVERITY__RATE_LIMIT: "critical" }), file: null });
    const row = buildInterruption("x", "rate_limit", { status_code: 429 }, 1n, { agentName: "a" }, c.detection);
    expect(row.severity).toBe("critical");
    expect(buildInterruption("x", "rate_limit", { status_code: 429 }, 1n, {}, configDefaults().detection).severity).toBe("medium");
  });

  it.each([
    [{ SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "-1" }, /storage\.interruptions\.retention_days: expected a positive integer, got -1 \(from SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS\)/],
    [{ SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "ten" }, /storage\.interruptions\.retention_days: expected a positive integer, got "ten"/],
    [{ SIGHTDESK_MAX_DB_SIZE_MB: "1.5" }, /max_db_size_mb: expected a positive integer/],
    [{ SIGHTDESK_DEADLOOP__ENABLED: "maybe" }, /deadloop\.enabled: expected true or false/],
    [{ SIGHTDESK_DETECTION__TOKEN_LIMIT_RATIO: "1.5" }, /detection\.token_limit_ratio: expected a number greater than 0 and at most 1/],
    [{ SIGHTDESK_DETECTION__SEVERITY__RATE_LIMIT: "urgent" }, /detection\.severity\.rate_limit: expected one of critical, high, medium, low/],
    [{ SIGHTDESK_DETECTION__LOOP__WINDOW: "4" }, /detection\.loop\.tool_repeat: must not exceed detection\.loop\.window \(4\)/],
  ])("rejects invalid environment values, naming the key (%o)", (vars, message) => {
    expect(() => loadConfig({ env: env(vars), file: null })).toThrow(ConfigError);
    expect(() => loadConfig({ env: env(vars), file: null })).toThrow(message);
  });

  it("rejects invalid and unknown keys in the file, naming them", () => {
    expect(() => loadConfig({ env: env(), file: file({ check_interval_secs: "60s" }) })).toThrow(/check_interval_secs: expected a positive integer, got "60s"/);
    expect(() => loadConfig({ env: env(), file: file({ storage: { interruptions: { retention_dayz: 3 } } }) })).toThrow(
      /storage\.interruptions\.retention_dayz: unknown configuration key/,
    );
    expect(() => loadConfig({ env: env(), file: file("{ not json") })).toThrow(/not valid JSON/);
    // every problem is reported at once
    expect(() => loadConfig({ env: env({ SIGHTDESK_CHECK_INTERVAL_SECS: "0" }), file: file({ max_db_size_mb: 0 }) })).toThrow(
      /max_db_size_mb: expected a positive integer[\s\S]*check_interval_secs: expected a positive integer/,
    );
  });
  it("reads the trusted proxies as CIDR ranges, none from the environment's `none`, and names a bad one", () => {
    expect(loadConfig({ env: env({ SIGHTDESK_SERVER__TRUSTED_PROXIES: "10.0.0.2/32, fd00::2" }), file: null }).server.trustedProxies).toEqual(["10.0.0.2/32", "fd00::2"]);
    expect(loadConfig({ env: env({ SIGHTDESK_SERVER__TRUSTED_PROXIES: "none" }), file: null }).server.trustedProxies).toEqual([]);
    expect(loadConfig({ env: env(), file: file({ server: { trusted_proxies: [] } }) }).server.trustedProxies).toEqual([]);
    expect(() => loadConfig({ env: env({ SIGHTDESK_SERVER__TRUSTED_PROXIES: "proxy.internal" }), file: null })).toThrow(
      /server\.trusted_proxies: expected a list of CIDR ranges[\s\S]*got \["proxy\.internal"\] \(from SIGHTDESK_SERVER__TRUSTED_PROXIES\)/,
    );
  });
});

describe("SMTP (email alerts)", () => {
  it("is off by default", () => {
    expect(loadConfig({ env: env(), file: null }).smtp).toEqual({ host: null, port: 587, secure: false, user: null, password: null, from: null });
  });

  it("reads host, port, TLS, user and From from the file or the environment, the password from the environment only", () => {
    const f = file({ smtp: { host: "mail.example.com", port: 465, secure: true, from: "SightDesk <alerts@example.com>" } });
    const c = loadConfig({ env: env({ SIGHTDESK_SMTP__USER: "12345", SIGHTDESK_SMTP__PASSWORD: " pass word " }), file: f });
    expect(c.smtp).toEqual({ host: "mail.example.com", port: 465, secure: true, user: "12345", password: " pass word ", from: "SightDesk <alerts@example.com>" });
    expect(c.source.env).toEqual(["smtp.user", "smtp.password"]); // names only
    expect(() => loadConfig({ env: env(), file: file({ smtp: { password: "hunter2" } }) })).toThrow(/smtp\.password: a secret, read only from SIGHTDESK_SMTP__PASSWORD/);
  });

  it("wants a From address with a host, a valid port, and never prints the password", () => {
    expect(() => loadConfig({ env: env({ SIGHTDESK_SMTP__HOST: "mail.example.com" }), file: null })).toThrow(/smtp\.from: required when smtp\.host is set/);
    expect(() => loadConfig({ env: env({ SIGHTDESK_SMTP__PORT: "70000" }), file: null })).toThrow(/smtp\.port: expected a port number/);
    let message = "";
    try {
      loadConfig({ env: env({ SIGHTDESK_SMTP__PASSWORD: "s3cret".repeat(200) }), file: null });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/smtp\.password: expected a password, got something else/);
    expect(message).not.toContain("s3cret");
  });
});
