// What the routes check before a webhook's destination is stored: an HTTP URL must pass the
// outbound policy (400 naming `url`), and email needs the SMTP server configured.
import { invalid } from "../domain/errors";
import { assertOutboundUrl } from "../config/outbound";
import { smtpMailer } from "./mailer";
import type { Destination } from "./webhooks";

export async function checkDestination(d: Destination): Promise<void> {
  if (d.kind === "email") {
    if (!smtpMailer()) throw invalid("kind: email alerts need smtp.host and smtp.from in the server's configuration");
    return;
  }
  await assertOutboundUrl(d.url, "url");
}
