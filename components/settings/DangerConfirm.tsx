"use client";
// "Are you sure?" for a destructive request on one item (revoke a token, delete a user or a
// webhook): runs the request, refreshes the list it belongs to, reports errors in the dialog.
import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ConfirmDialog, errorMessage } from "./ui";
import { refreshAfterWrite } from "@/components/api/refresh";

export function DangerConfirm<T>({
  item,
  title,
  confirmLabel,
  request,
  refresh,
  onClose,
  onDone,
  children,
}: {
  item: T | null;
  title: string;
  confirmLabel: string;
  request: (item: T) => Promise<unknown>;
  refresh: QueryKey;
  onClose: () => void;
  onDone?: (item: T) => void;
  children: ReactNode;
}) {
  const queryClient = useQueryClient();
  const run = useMutation({
    mutationFn: async (t: T) => {
      await request(t);
      return t;
    },
    onSuccess: (t) => {
      void refreshAfterWrite(queryClient, { queryKey: refresh });
      onDone?.(t);
      close();
    },
  });
  function close() {
    run.reset();
    onClose();
  }
  return (
    <ConfirmDialog
      open={item !== null}
      title={title}
      confirmLabel={confirmLabel}
      danger
      busy={run.isPending}
      error={run.error ? errorMessage(run.error) : null}
      onConfirm={() => item !== null && run.mutate(item)}
      onCancel={close}
    >
      {children}
    </ConfirmDialog>
  );
}
