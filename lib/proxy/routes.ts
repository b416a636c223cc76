// Which upstream a proxied path goes to (SPEC §2.6): `/openai/*` → https://api.openai.com/*,
// `/anthropic/*` → https://api.anthropic.com/*, and `/NAME/*` for each configured upstream.
// Pure.

export const DEFAULT_UPSTREAMS: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com",
  anthropic: "https://api.anthropic.com",
};

export type Upstreams = ReadonlyMap<string, URL>;

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/** `NAME=URL` (from `--upstream` or `proxy.upstreams`) → [name, base URL]; throws naming what is wrong. */
export function parseUpstream(spec: string): [string, URL] {
  const at = spec.indexOf("=");
  const name = spec.slice(0, at).trim();
  const raw = spec.slice(at + 1).trim();
  if (at <= 0 || !NAME.test(name)) throw new Error(`expected NAME=URL with a NAME of letters, digits, - and _ (got '${spec}')`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`'${raw}' is not a URL (expected e.g. ${name}=https://api.example.com)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`'${raw}': only http and https upstreams`);
  if (url.username || url.password || url.search || url.hash) throw new Error(`'${raw}': give only scheme, host, port and path`);
  return [name.toLowerCase(), url];
}

/** The defaults, overridden or extended by `NAME=URL` specs. */
export function upstreamMap(specs: readonly string[] = []): Map<string, URL> {
  const map = new Map<string, URL>(Object.entries(DEFAULT_UPSTREAMS).map(([k, v]) => [k, new URL(v)]));
  for (const s of specs) {
    const [name, url] = parseUpstream(s);
    map.set(name, url);
  }
  return map;
}

/**
 * The upstream URL for a request path (`/openai/v1/chat/completions?x=1`), or null when the
 * first segment names no upstream. The upstream's own path prefix is kept:
 * `dashscope=https://dashscope.aliyuncs.com/compatible-mode` + `/dashscope/v1/chat/completions`
 * → `https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions`.
 */
export function routeRequest(pathAndQuery: string, upstreams: Upstreams): { name: string; url: URL } | null {
  const m = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?/.exec(pathAndQuery);
  if (!m) return null;
  let name: string;
  try {
    name = decodeURIComponent(m[1]).toLowerCase();
  } catch {
    return null; // a malformed escape (`/%zz/…`) names no upstream
  }
  const base = upstreams.get(name);
  if (!base) return null;
  const url = new URL(base.toString());
  const basePath = base.pathname.replace(/\/+$/, "");
  url.pathname = basePath + (m[2] ?? "");
  // dot segments (`/internal/../admin`, `%2e%2e`) resolve against the upstream's path: one that
  // leaves it names no path of this upstream
  if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return null;
  url.search = m[3] ?? "";
  return { name, url };
}

/**
 * A redirect's `Location` as the agent must follow it to stay on the proxy: one under the
 * upstream `name` (resolved against the request's upstream URL, e.g. FastAPI's 307 to the path
 * with a trailing slash) becomes the proxy's `prefix/name/…` path; one elsewhere is kept.
 * Followed as the upstream gave it, the agent would leave the proxy and its call go unrecorded.
 */
export function proxiedLocation(location: string, requestUrl: URL, upstreams: Upstreams, name: string, prefix = ""): string {
  const base = upstreams.get(name);
  let to: URL;
  try {
    to = new URL(location, requestUrl);
  } catch {
    return location;
  }
  if (!base || to.origin !== base.origin) return location;
  const basePath = base.pathname.replace(/\/+$/, "");
  if (to.pathname !== basePath && !to.pathname.startsWith(`${basePath}/`)) return location;
  return `${prefix}/${encodeURIComponent(name)}${to.pathname.slice(basePath.length)}${to.search}${to.hash}`;
}
