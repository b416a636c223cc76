"use client";
// Settings → Users and roles. Admins list users, add them, change roles, reset passwords and
// delete users; everyone else sees what each role may do and which one they have.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api } from "@/components/api/client";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, timeAgo } from "@/components/ui/format";
import { ROLE_HELP, ROLES, type Role, type UserRecord } from "./types";
import { DangerConfirm } from "./DangerConfirm";
import { Button, FormFooter, Chip, ConfirmDialog, ErrorText, errorMessage, Field, inputClass, Notice, randomPassword } from "./ui";
import { Section } from "@/components/ui/Section";
import { refreshAfterWrite } from "@/components/api/refresh";

const USERS_KEY = ["settings", "users"] as const;
const MIN_PASSWORD = 8;

export function UsersSection() {
  const me = useCurrentUser();
  const admin = isAdmin(me);
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <Section
      variant="band"
      id="users"
      title="Users and roles"
      description="People who sign in to this dashboard, and what their role lets them do."
      actions={
        admin && !adding ? (
          <Button variant="primary" onClick={() => (setAdding(true), setNotice(null))}>
            Add user
          </Button>
        ) : null
      }
    >
      <RoleLegend current={me.role} />
      {admin ? (
        <>
          {notice && (
            <Notice tone="success" testId="users-notice">
              {notice}
            </Notice>
          )}
          {adding && (
            <AddUserForm
              onCancel={() => setAdding(false)}
              onCreated={(u) => {
                setAdding(false);
                setNotice(`Added ${u.email} as ${u.role}. Share the password with them over a safe channel.`);
              }}
            />
          )}
          <UsersTable meId={me.id} onNotice={setNotice} />
        </>
      ) : (
        <Notice testId="users-readonly-note">
          You are signed in as <strong>{me.email}</strong> with the <strong>{me.role}</strong> role. Only admins can see the user list, add users or
          change roles.
        </Notice>
      )}
    </Section>
  );
}

function RoleLegend({ current }: { current: string }) {
  return (
    <dl className="grid gap-2 sm:grid-cols-3">
      {ROLES.map((r) => (
        <div key={r} className={`rounded border px-3 py-2 ${r === current ? "border-[var(--accent)]" : "border-default"}`}>
          <dt className="flex items-center gap-2 text-sm font-medium">
            {r}
            {r === current && <Chip tone="accent">your role</Chip>}
          </dt>
          <dd className="text-xs text-muted">{ROLE_HELP[r]}</dd>
        </div>
      ))}
    </dl>
  );
}

function PasswordInput({ value, onChange, label = "Password", autoFocus }: { value: string; onChange: (v: string) => void; label?: string; autoFocus?: boolean }) {
  const [visible, setVisible] = useState(false);
  return (
    <div>
      <Field label={label} hint={`At least ${MIN_PASSWORD} characters.`}>
        <input
          type={visible ? "text" : "password"}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          required
          minLength={MIN_PASSWORD}
          maxLength={1024}
          autoComplete="new-password"
          autoFocus={autoFocus}
          spellCheck={false}
          className={`${inputClass} font-mono`}
        />
      </Field>
      <div className="mt-1 flex gap-2">
        <Button
          small
          onClick={() => {
            onChange(randomPassword());
            setVisible(true);
          }}
        >
          Generate
        </Button>
        <Button small variant="ghost" onClick={() => setVisible((v) => !v)}>
          {visible ? "Hide" : "Show"}
        </Button>
      </div>
    </div>
  );
}

function AddUserForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (u: UserRecord) => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [password, setPassword] = useState("");
  const create = useMutation({
    mutationFn: () => api.post<UserRecord>("/api/users", { email, name: name.trim() || null, role, password }),
    onSuccess: (u) => {
      void refreshAfterWrite(queryClient, { queryKey: USERS_KEY });
      onCreated(u);
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }
  return (
    <form onSubmit={submit} aria-label="Add user" className="space-y-3 rounded border border-default p-3">
      <h3 className="text-sm font-semibold">Add a user</h3>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Email">
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required maxLength={254} autoFocus autoComplete="off" className={inputClass} />
        </Field>
        <Field label="Name" hint="Optional.">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="off" className={inputClass} />
        </Field>
        <Field label="Role" hint={ROLE_HELP[role]}>
          <select value={role} onChange={(e) => setRole(e.target.value as Role)} className={inputClass}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <PasswordInput value={password} onChange={setPassword} />
      </div>
      <FormFooter
        error={create.error ? errorMessage(create.error) : null}
        errorTestId="add-user-error"
        pending={create.isPending}
        submit="Create user"
        pendingLabel="Adding…"
        onCancel={onCancel}
      />
    </form>
  );
}

function UsersTable({ meId, onNotice }: { meId: string; onNotice: (text: string) => void }) {
  const users = useQuery({ queryKey: USERS_KEY, queryFn: () => api.get<UserRecord[]>("/api/users") });
  const [deleting, setDeleting] = useState<UserRecord | null>(null);
  const [resetting, setResetting] = useState<UserRecord | null>(null);

  if (users.isPending) return <p className="text-sm text-muted">Loading users…</p>;
  if (users.isError) return <ErrorText>Could not load users: {errorMessage(users.error)}</ErrorText>;
  const admins = users.data.filter((u) => u.role === "admin").length;
  return (
    <>
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="users-table">
          <thead>
            <tr className="border-b border-default text-left text-xs text-muted uppercase tracking-wide">
              <th className="py-2 pr-3 font-medium">User</th>
              <th className="py-2 pr-3 font-medium">Role</th>
              <th className="py-2 pr-3 font-medium">Added</th>
              <th className="py-2 text-right font-medium">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <UserRow
                key={u.id}
                user={u}
                isMe={u.id === meId}
                lastAdmin={u.role === "admin" && admins === 1}
                onDelete={() => setDeleting(u)}
                onReset={() => setResetting(u)}
                onNotice={onNotice}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-muted">
        {users.data.length} {users.data.length === 1 ? "user" : "users"}, {admins} {admins === 1 ? "admin" : "admins"}. There is always at least one admin.
      </p>
      <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} onDeleted={(u) => onNotice(`Deleted ${u.email}.`)} />
      <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} onDone={(u) => onNotice(`Set a new password for ${u.email}. Share it with them over a safe channel.`)} />
    </>
  );
}

function UserRow({
  user,
  isMe,
  lastAdmin,
  onDelete,
  onReset,
  onNotice,
}: {
  user: UserRecord;
  isMe: boolean;
  lastAdmin: boolean;
  onDelete: () => void;
  onReset: () => void;
  onNotice: (text: string) => void;
}) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [pendingSelf, setPendingSelf] = useState<Role | null>(null);
  const change = useMutation({
    mutationFn: (role: Role) => api.post<UserRecord>(`/api/users/${encodeURIComponent(user.id)}`, { role }),
    onSuccess: (u) => {
      setPendingSelf(null);
      // the row shows the new role at once: until the list is read again it would show the old
      // one, and choosing that one back would look like no change and be ignored
      queryClient.setQueryData<UserRecord[]>(USERS_KEY, (list) => list?.map((x) => (x.id === u.id ? u : x)));
      void refreshAfterWrite(queryClient, { queryKey: USERS_KEY });
      onNotice(`${u.email} is now ${u.role}.`);
      if (isMe) router.refresh(); // the shell and this page follow the new role
    },
  });
  function choose(role: Role) {
    if (role === user.role) return;
    if (isMe && role !== "admin") setPendingSelf(role);
    else change.mutate(role);
  }
  const label = user.name || user.email;
  return (
    <tr className="border-b border-default align-top last:border-b-0" data-testid="user-row" data-email={user.email}>
      <td className="py-2 pr-3">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium break-all">{label}</span>
          {isMe && <Chip tone="accent">you</Chip>}
        </div>
        {user.name && <div className="text-xs break-all text-muted">{user.email}</div>}
      </td>
      <td className="py-2 pr-3">
        <select
          aria-label={`Role of ${user.email}`}
          value={change.isPending && change.variables ? change.variables : user.role}
          disabled={change.isPending}
          onChange={(e) => choose(e.target.value as Role)}
          className={`${inputClass} w-auto py-1`}
        >
          {ROLES.map((r) => (
            <option key={r} value={r} disabled={lastAdmin && r !== "admin"}>
              {r}
            </option>
          ))}
        </select>
        {lastAdmin && <div className="mt-1 text-xs text-muted">the last admin</div>}
        <ErrorText>{change.error ? errorMessage(change.error) : null}</ErrorText>
      </td>
      <td className="py-2 pr-3 whitespace-nowrap text-muted" title={formatTime(user.created_at_ns)}>
        {timeAgo(user.created_at_ns)}
      </td>
      <td className="py-2">
        <div className="flex justify-end gap-2">
          <Button small onClick={onReset} aria-label={`Reset password of ${user.email}`}>
            Reset password
          </Button>
          {!isMe && (
            <Button small variant="danger" onClick={onDelete} disabled={lastAdmin} aria-label={`Delete ${user.email}`}>
              Delete
            </Button>
          )}
        </div>
        <ConfirmDialog
          open={pendingSelf !== null}
          title="Give up your admin role?"
          confirmLabel={`Make me ${pendingSelf ?? ""}`}
          danger
          busy={change.isPending}
          error={change.error ? errorMessage(change.error) : null}
          onConfirm={() => pendingSelf && change.mutate(pendingSelf)}
          onCancel={() => (setPendingSelf(null), change.reset())}
        >
          <p>You will no longer be able to manage users, tokens or settings. Another admin can give the role back.</p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}

function DeleteUserDialog({ user, onClose, onDeleted }: { user: UserRecord | null; onClose: () => void; onDeleted: (u: UserRecord) => void }) {
  return (
    <DangerConfirm
      item={user}
      title="Delete this user?"
      confirmLabel="Delete user"
      request={(u) => api.del<UserRecord>(`/api/users/${encodeURIComponent(u.id)}`)}
      refresh={USERS_KEY}
      onClose={onClose}
      onDone={onDeleted}
    >
      <p>
        <strong className="break-all">{user?.email}</strong> will no longer be able to sign in. What they did stays in the activity log under their
        email.
      </p>
    </DangerConfirm>
  );
}

function ResetPasswordDialog({ user, onClose, onDone }: { user: UserRecord | null; onClose: () => void; onDone: (u: UserRecord) => void }) {
  const [password, setPassword] = useState("");
  const reset = useMutation({
    mutationFn: (u: UserRecord) => api.post<UserRecord>(`/api/users/${encodeURIComponent(u.id)}`, { password }),
    onSuccess: (u) => {
      onDone(u);
      close();
    },
  });
  function close() {
    reset.reset();
    setPassword("");
    onClose();
  }
  const tooShort = password.length < MIN_PASSWORD;
  return (
    <ConfirmDialog
      open={user !== null}
      title="Reset password"
      confirmLabel="Set password"
      busy={reset.isPending}
      error={reset.error ? errorMessage(reset.error) : tooShort && password ? `At least ${MIN_PASSWORD} characters.` : null}
      onConfirm={() => user && !tooShort && reset.mutate(user)}
      onCancel={close}
    >
      <p>
        A new password for <strong className="break-all">{user?.email}</strong>. Their current sessions stay signed in.
      </p>
      <PasswordInput value={password} onChange={setPassword} label="New password" autoFocus />
    </ConfirmDialog>
  );
}
