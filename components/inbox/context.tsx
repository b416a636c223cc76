"use client";
// The inbox's state, built once by <Inbox> and read by its parts through `useInbox()` (so no
// part receives a long list of props): the view (useInboxView), the selection and focus
// (useSelection) and the writes (useTriage).
import { createContext, useContext } from "react";
import { useInboxView } from "./useInboxView";
import { useSelection } from "./useSelection";
import { useTriage } from "./useTriage";

export function useInboxState() {
  const view = useInboxView();
  const selection = useSelection(view);
  const actions = useTriage(view, selection);
  return { view, selection, actions };
}

export type InboxState = ReturnType<typeof useInboxState>;

export const InboxContext = createContext<InboxState | null>(null);

export function useInbox(): InboxState {
  const state = useContext(InboxContext);
  if (!state) throw new Error("useInbox outside <Inbox>");
  return state;
}
