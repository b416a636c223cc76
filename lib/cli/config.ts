// Where the server is and which token to send: --url / SIGHTDESK_URL / the default, and
// --token / SIGHTDESK_TOKEN / the local dashboard token file, in that order.
import fs from "node:fs";
import { dashboardTokenPath } from "../auth/dashboardToken";
import { UsageError } from "./errors";

export const DEFAULT_URL = "http://127.0.0.1:3000";

export type GlobalOptions = { url?: string; token?: string };

export type Connection = {
  /** the server's base URL, without a trailing slash */
  url: string;
  token: string;
  /** where the token came from, for error messages (never the token itself) */
  tokenSource: string;
};

/** A URL as an error message may show it: without its credentials (user and password, query, fragment). */
function shownUrl(url: URL): string {
  const shown = new URL(url.toString());
  shown.username = shown.password = shown.search = shown.hash = "";
  return shown.toString();
}

export function resolveUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = (flag ?? env.SIGHTDESK_URL ?? "").trim() || DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // text that is no URL may still hold a secret: only its length is shown
    throw new UsageError(`Invalid server URL (${raw.length} characters, not a URL): expected e.g. ${DEFAULT_URL}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`Invalid server URL '${shownUrl(url)}': expected an http:// or https:// URL`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(`Invalid server URL '${shownUrl(url)}': give only the scheme, host, port and path (pass the token with --token)`);
  }
  return url.toString().replace(/\/+$/, "");
}

function readTokenFile(file: string): string | null {
  try {
    const text = fs.readFileSync(file, "utf8").trim();
    return text || null;
  } catch {
    return null;
  }
}

type TokenChoice = { token: string; tokenSource: string };

function checked(choice: TokenChoice): TokenChoice {
  if (!/^[\x21-\x7e]+$/.test(choice.token)) throw new UsageError(`The token from ${choice.tokenSource} contains invalid characters`);
  return choice;
}

export function resolveToken(flag: string | undefined, env: NodeJS.ProcessEnv, url = DEFAULT_URL): TokenChoice {
  return checked(findToken(flag, env, url));
}

/** A server on this machine: the only one the local token file (an all-scope token) is sent to. */
function isLocal(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

function findToken(flag: string | undefined, env: NodeJS.ProcessEnv, url: string): TokenChoice {
  if (flag !== undefined) {
    if (!flag.trim()) throw new UsageError("--token is empty");
    return { token: flag.trim(), tokenSource: "--token" };
  }
  const fromEnv = env.SIGHTDESK_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, tokenSource: "SIGHTDESK_TOKEN" };
  const file = dashboardTokenPath();
  if (!isLocal(url)) {
    throw new UsageError(`No API token for ${url}: pass --token or set SIGHTDESK_TOKEN (the local token file ${file} is sent only to a server on this machine)`);
  }
  const fromFile = readTokenFile(file);
  if (fromFile) return { token: fromFile, tokenSource: `the token file ${file}` };
  throw new UsageError(
    `No API token: pass --token, set SIGHTDESK_TOKEN, or run where the server's token file is (${file}; set SIGHTDESK_DATA_DIR to its data directory)`,
  );
}

export function resolveConnection(opts: GlobalOptions, env: NodeJS.ProcessEnv): Connection {
  const url = resolveUrl(opts.url, env);
  return { url, ...resolveToken(opts.token, env, url) };
}
