// The channels as the server sends through them: HTTP within the outbound policy, SMTP as
// configured (null when it is not), links from SIGHTDESK_PUBLIC_URL.
import { outboundFetch } from "../../config/outbound";
import { smtpMailer } from "../mailer";
import { publicBaseUrl } from "../rules";
import type { Channels } from "../send";

export function serverChannels(): Channels {
  return { fetch: outboundFetch(), mail: smtpMailer(), baseUrl: publicBaseUrl() };
}
