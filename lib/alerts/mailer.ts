// Email alerts leave through the SMTP server of the configuration (`smtp.*`), with nodemailer.
// The operator chose that server, so it is not held to the outbound policy that admins' webhook
// URLs are (a mail relay often has a private address). One connection per message: alerts are
// few, and nothing is left open between them. Every phase (DNS, connect, greeting, each reply)
// and the whole exchange are bounded by the attempt's timeout.
import nodemailer from "nodemailer";
import { config, type SmtpConfig } from "../config/load";

export type OutgoingMail = { to: string[]; subject: string; text: string; messageId: string; headers: Record<string, string> };
/** Sends one message; resolves to the server's reply code to the message (250 when accepted). */
export type MailLike = (message: OutgoingMail, timeoutMs: number) => Promise<{ responseCode: number | null }>;

/** An error that reads as a timeout to describeFailure. */
function timeoutError(ms: number): Error {
  const e = new Error(`no answer within ${ms} ms`);
  e.name = "TimeoutError";
  return e;
}

/** "250 2.0.0 OK: queued as …" → 250 */
export const replyCode = (response: unknown): number | null => {
  const m = typeof response === "string" ? /^(\d{3})\b/.exec(response) : null;
  return m ? Number(m[1]) : null;
};

const isLoopbackHost = (host: string) => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The configured SMTP sender, or null when `smtp.host` is not set (email alerts are off). */
export function smtpMailer(smtp: SmtpConfig = config().smtp): MailLike | null {
  const { host, from } = smtp;
  if (!host || !from) return null;
  return async (message, timeoutMs) => {
    const transport = nodemailer.createTransport({
      host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? "" } : undefined,
      // a password never crosses the network in clear text: without `secure`, a server that does
      // not offer STARTTLS is refused (a relay on this machine's loopback may go without)
      requireTLS: Boolean(smtp.user) && !smtp.secure && !isLoopbackHost(host),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const sent = transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: message.messageId,
        headers: message.headers,
        textEncoding: "quoted-printable",
      });
      sent.catch(() => undefined); // past the deadline its failure is no one's business
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timeoutError(timeoutMs)), timeoutMs);
      });
      const info = await Promise.race([sent, deadline]);
      return { responseCode: replyCode(info.response) };
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  };
}
