// A tiny OpenID Connect issuer for tests: discovery document, JWKS, an authorize endpoint that
// approves at once (as whoever the test says signs in next) and a token endpoint that returns
// an RS256 ID token signed with `jose` (next-auth's own dependency).
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export type Claims = { sub: string; email?: string; email_verified?: unknown; name?: string };

export type FakeIssuer = {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The claims the next authorization code stands for. */
  signInAs: (claims: Claims) => void;
  stop: () => Promise<void>;
};

export async function startIssuer(): Promise<FakeIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const clientId = "sightdesk-test";
  const clientSecret = crypto.randomBytes(16).toString("hex");
  const codes = new Map<string, { claims: Claims; challenge: string | null }>();
  let next: Claims | null = null;
  let url = "";

  const server = http.createServer(async (req, res) => {
    const u = new URL(req.url ?? "/", url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (u.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer: url,
        authorization_endpoint: `${url}/authorize`,
        token_endpoint: `${url}/token`,
        jwks_uri: `${url}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (u.pathname === "/jwks") return json(200, { keys: [jwk] });
    if (u.pathname === "/authorize") {
      if (!next || u.searchParams.get("client_id") !== clientId) return json(400, { error: "unexpected authorize" });
      const code = crypto.randomBytes(12).toString("hex");
      codes.set(code, { claims: next, challenge: u.searchParams.get("code_challenge") });
      const back = new URL(u.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", u.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (u.pathname === "/token" && req.method === "POST") {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64");
      const authed = req.headers.authorization === `Basic ${basic}` || (form.get("client_id") === clientId && form.get("client_secret") === clientSecret);
      if (!grant || !authed) return json(400, { error: "invalid_grant" });
      const verifier = form.get("code_verifier") ?? "";
      if (grant.challenge && crypto.createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) return json(400, { error: "invalid_grant" });
      const idToken = await new SignJWT({ ...grant.claims })
        .setProtectedHeader({ alg: "RS256", kid: "test-key" })
        .setIssuer(url)
        .setAudience(clientId)
        .setSubject(grant.claims.sub)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
      return json(200, { access_token: crypto.randomBytes(16).toString("hex"), token_type: "Bearer", expires_in: 300, id_token: idToken });
    }
    json(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clientId,
    clientSecret,
    signInAs: (claims) => (next = claims),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
