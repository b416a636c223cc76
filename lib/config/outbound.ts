// The server's outbound policy: the `outbound.allow_private` ranges from the configuration, the
// check made when a webhook or forwarder URL is stored (400 naming the field), and the fetch used
// to send (resolve, check every address, connect to the checked one).
// It lives with the configuration it applies; lib/net (address rules, pinned fetch) reads none.
import { invalid } from "../domain/errors";
import { parseAllowList } from "../net/outbound";
import { OutboundBlockedError, pinnedFetch, resolveOutbound, type OutboundPolicy, type Resolver } from "../net/pinned";
import { config } from "./load";

/** The configured policy (the configuration is read once per process). */
export function outboundPolicy(resolve?: Resolver): OutboundPolicy {
  return { allow: parseAllowList(config().outbound.allowPrivate), ...(resolve ? { resolve } : {}) };
}

/** The fetch SightDesk sends webhooks and terminate requests with. */
export function outboundFetch(policy: OutboundPolicy = outboundPolicy()) {
  return pinnedFetch(policy);
}

/** Refuses (400 naming `field`) a URL whose host is, or resolves to, an address the policy refuses. */
export async function assertOutboundUrl(url: string, field = "url", policy: OutboundPolicy = outboundPolicy()): Promise<void> {
  try {
    await resolveOutbound(url, policy);
  } catch (e) {
    if (e instanceof OutboundBlockedError) throw invalid(`${field}: ${e.message}`);
    throw e;
  }
}
