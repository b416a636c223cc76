"use client";
import { useState } from "react";
import { clip } from "@/lib/trajectory/messages";

/**
 * Untrusted text (model output, tool output, error bodies) as a text node in a <pre>: never
 * parsed as HTML. Long text is cut, with a button to show the rest.
 */
export function TextBlock({
  text,
  max = 4000,
  variant = "code",
  tone = "default",
  testId,
}: {
  text: string;
  max?: number;
  variant?: "code" | "prose";
  tone?: "default" | "error" | "muted";
  testId?: string;
}) {
  const [full, setFull] = useState(false);
  const shown = full ? { text, hidden: 0 } : clip(text, max);
  const font = variant === "prose" ? "font-sans text-[13px] leading-relaxed" : "max-h-[32rem] overflow-auto font-mono text-[12px] leading-[1.5]";
  const toneClass = tone === "error" ? "text-red-700 dark:text-red-300" : tone === "muted" ? "text-muted" : "";
  return (
    <div className="min-w-0">
      <pre data-testid={testId} className={`m-0 whitespace-pre-wrap break-words [overflow-wrap:anywhere] ${font} ${toneClass}`}>
        {shown.text}
        {shown.hidden > 0 && "…"}
      </pre>
      {shown.hidden > 0 && (
        <button type="button" className="mt-1 text-xs accent hover:underline" onClick={() => setFull(true)}>
          Show {shown.hidden.toLocaleString()} more characters
        </button>
      )}
      {full && text.length > max && (
        <button type="button" className="mt-1 text-xs accent hover:underline" onClick={() => setFull(false)}>
          Show less
        </button>
      )}
    </div>
  );
}
