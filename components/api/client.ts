// The browser's client for SightDesk's own REST API (same routes as external clients, with
// the session cookie). Nanosecond values stay exact: `*_ns` fields arrive as strings.
import { parseJsonExact } from "@/lib/wire/json";

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null | string[]>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) continue;
    params.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A JSON body, or a FormData one (multipart/form-data: the browser sets the content type). */
async function send<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
  const json = body !== undefined && !(body instanceof FormData);
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: json ? { "content-type": "application/json" } : {},
    body: json ? JSON.stringify(body) : (body as FormData | undefined),
  });
  const text = await res.text();
  const data = text ? parseJsonExact(text) : null;
  if (!res.ok) {
    const message = (data as { error?: string } | null)?.error ?? `${res.status} ${res.statusText}`;
    throw new ApiRequestError(res.status, message);
  }
  return { data: data as T, headers: res.headers };
}

export const api = {
  get: async <T>(path: string, query?: Query) => (await send<T>("GET", withQuery(path, query))).data,
  getWithHeaders: <T>(path: string, query?: Query) => send<T>("GET", withQuery(path, query)),
  post: async <T>(path: string, body?: unknown) => (await send<T>("POST", path, body ?? {})).data,
  del: async <T>(path: string) => (await send<T>("DELETE", path)).data,
  /** POSTs files and fields as multipart/form-data. */
  upload: async <T>(path: string, form: FormData) => (await send<T>("POST", path, form)).data,
};
