// A real SMTP server for tests (smtp-server), on 127.0.0.1 and a free port: it records every
// message — envelope, the credentials it was given, headers and the decoded text — and can be
// told to refuse recipients. Plain text only (no STARTTLS): the test talks to it locally.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type ReceivedMail = {
  from: string;
  to: string[];
  /** the user that authenticated, if any */
  user: string | null;
  headers: Record<string, string>;
  /** the body, transfer encoding undone */
  text: string;
  raw: string;
};

export type SmtpReceiver = {
  port: number;
  mails: ReceivedMail[];
  auths: { username: string; password: string }[];
  /** recipients refused with 550 */
  refuse: Set<string>;
  close: () => Promise<void>;
};

/** Unfolds header lines and lower-cases names (the last of repeated headers wins). */
function parseHeaders(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

/** Quoted-printable (RFC 2045) to text: soft breaks removed, =XX bytes decoded as UTF-8. */
export function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const text = body.replace(/=\r\n/g, "");
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "=" && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8").replace(/\r\n/g, "\n");
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const auths: SmtpReceiver["auths"] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      auths.push({ username: auth.username ?? "", password: auth.password ?? "" });
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address)) return callback(Object.assign(new Error("mailbox unavailable: secret reply text"), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const split = raw.indexOf("\r\n\r\n");
        const headers = parseHeaders(raw.slice(0, split));
        const body = raw.slice(split + 4);
        const text = /quoted-printable/i.test(headers["content-transfer-encoding"] ?? "") ? decodeQuotedPrintable(body) : body.replace(/\r\n/g, "\n");
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === "string" ? session.user : null,
          headers,
          text,
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, auths, refuse, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
