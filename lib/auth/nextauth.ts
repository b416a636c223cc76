// next-auth configuration: email + password (Credentials, JWT sessions), and an OIDC provider
// when SIGHTDESK_OIDC_ISSUER / _CLIENT_ID / _CLIENT_SECRET are set. The session cookie carries
// the user's id and session version (checked on every request: lib/api/auth.ts, currentUser).
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { db } from "../db/client";
import { decideOidcSignIn, type OidcClaims } from "./oidc";
import { sessionSecret } from "./sessionSecret";
import { forgetUser, sessionUser } from "./identity";
import { checkCredentials, endSessions } from "./users";

/** Thrown by the jwt callback for a cookie whose session has ended: next-auth answers an empty session and clears the cookie. */
class SessionEnded extends Error {
  name = "SessionEnded"; // compared by name: next-auth's logger is shared by every route bundle, each with its own class
}

type OidcProfile = { sub: string; email?: string; email_verified?: boolean; name?: string };

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
    // the ID token is checked (signature, issuer, audience, expiry) by next-auth's openid-client
  };
}

// Without NEXTAUTH_URL, build sign-in/out redirects from the request's Host (self-hosted, any
// port); set NEXTAUTH_URL behind a proxy that does not pass the public host.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export function authOptions(): NextAuthOptions {
  const oidc = oidcProvider();
  return {
    secret: sessionSecret(),
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
    // errors (a refused single sign-on: ?error=AccessDenied) show on the login page
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const user = await checkCredentials(db(), credentials.email, credentials.password);
          return user ? { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion } : null;
        },
      }),
      ...(oidc ? [oidc] : []),
    ],
    callbacks: {
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc") return true;
        const claims = (profile ?? {}) as OidcClaims;
        const decision = await decideOidcSignIn(db(), claims);
        if (!decision.ok) {
          console.warn(`single sign-on refused (${decision.reason}) for sub ${JSON.stringify(String(claims.sub ?? ""))} email ${JSON.stringify(String(claims.email ?? ""))}`);
          return false;
        }
        if (decision.outcome !== "signed-in") console.info(`single sign-on ${decision.outcome} user ${decision.user.email} (sub ${JSON.stringify(decision.user.oidcSubject)})`);
        return true;
      },
      async jwt({ token, user, account }) {
        if (user && account?.provider === "oidc") {
          // signIn (above) linked or created the user for this subject
          const linked = await db().user.findUnique({ where: { oidcSubject: account.providerAccountId } });
          if (!linked) throw new Error("No user for this single sign-on subject");
          token.uid = linked.id;
          token.sv = linked.sessionVersion;
        } else if (user) {
          token.uid = user.id;
          token.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
        } else {
          // a cookie read back (/api/auth/session, a page): its user gone, or signed out since.
          // Only a successful read ends it: with the database down the cookie stays as it is.
          const current = await sessionUser(db(), token).then(Boolean, (e: Error) => {
            console.error(`[sightdesk] could not check a session cookie against the database (kept as it is): ${e.message}`);
            return true;
          });
          if (!current) throw new SessionEnded("session ended");
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, uid: token.uid, sv: token.sv };
      },
    },
    logger: {
      error(code, metadata) {
        if ((metadata as { name?: unknown } | undefined)?.name === "SessionEnded") return; // expected: an old cookie, now cleared
        console.error(`[next-auth][error][${code}]`, metadata);
      },
    },
    events: {
      // every process refuses the old cookies within the user cache's life (lib/auth/identity.ts); this one at once
      async signOut({ token }) {
        const uid = await endSessions(db(), token);
        if (uid) forgetUser(uid);
      },
    },
  };
}
