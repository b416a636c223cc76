// next-auth configuration: email + password (Credentials, JWT sessions), and an OIDC provider
// when SIGHTDESK_OIDC_ISSUER / _CLIENT_ID / _CLIENT_SECRET are set.
import crypto from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { db } from "../db/client";
import { nowNs } from "../time";
import { ROLES, type Role } from "./roles";
import { sessionSecret } from "./sessionSecret";
import { checkCredentials } from "./users";

type OidcProfile = { sub: string; email?: string; name?: string };

function oidcProvider(env = process.env): OAuthConfig<OidcProfile> | null {
  const issuer = env.SIGHTDESK_OIDC_ISSUER;
  if (!issuer || !env.SIGHTDESK_OIDC_CLIENT_ID || !env.SIGHTDESK_OIDC_CLIENT_SECRET) return null;
  return {
    id: "oidc",
    name: env.SIGHTDESK_OIDC_NAME || "single sign-on",
    type: "oauth",
    wellKnown: `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
    clientId: env.SIGHTDESK_OIDC_CLIENT_ID,
    clientSecret: env.SIGHTDESK_OIDC_CLIENT_SECRET,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    profile: (p) => ({ id: p.sub, email: p.email ?? null, name: p.name ?? null }),
  };
}

/** OIDC users are created on first sign-in with SIGHTDESK_OIDC_DEFAULT_ROLE (viewer). */
async function userForOidc(email: string, name: string | null) {
  const existing = await db().user.findUnique({ where: { email: email.toLowerCase() } });
  if (existing) return existing;
  const configured = process.env.SIGHTDESK_OIDC_DEFAULT_ROLE as Role | undefined;
  const role: Role = configured && ROLES.includes(configured) ? configured : "viewer";
  return db().user.create({
    data: { id: crypto.randomUUID(), email: email.toLowerCase(), name, role, passwordHash: "!oidc", createdAtNs: nowNs() },
  });
}

// Without NEXTAUTH_URL, build sign-in/out redirects from the request's Host (self-hosted, any
// port); set NEXTAUTH_URL behind a proxy that does not pass the public host.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export function authOptions(): NextAuthOptions {
  const oidc = oidcProvider();
  return {
    secret: sessionSecret(),
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
    pages: { signIn: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const user = await checkCredentials(db(), credentials.email, credentials.password);
          return user ? { id: user.id, email: user.email, name: user.name } : null;
        },
      }),
      ...(oidc ? [oidc] : []),
    ],
    callbacks: {
      async jwt({ token, user, account }) {
        if (user && account?.provider === "oidc") {
          if (!user.email) throw new Error("The identity provider sent no email");
          token.uid = (await userForOidc(user.email, user.name ?? null)).id;
        } else if (user) {
          token.uid = user.id;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, uid: token.uid };
      },
    },
  };
}
