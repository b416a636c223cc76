"use client";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

type Position = { top: number; left: number; above: boolean };

/**
 * A focusable trigger with a tooltip shown on hover and on keyboard focus (Escape hides it).
 * The tooltip is linked with aria-describedby, so screen readers announce it with the trigger,
 * and it is positioned `fixed`, so scrolling containers and table cells never clip it.
 */
export function Tooltip({
  content,
  children,
  className = "",
  testId,
}: {
  content: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  const id = useId();
  const trigger = useRef<HTMLSpanElement>(null);
  const [pos, setPos] = useState<Position | null>(null);

  const show = () => {
    const r = trigger.current?.getBoundingClientRect();
    if (!r) return;
    const width = 288; // max-w-72
    const left = Math.max(8, Math.min(r.left, window.innerWidth - width - 8));
    const below = r.bottom + 6;
    // Open upwards when there is no room below (an estimate; the content is short).
    setPos(below + 160 > window.innerHeight && r.top > 170 ? { top: r.top - 6, left, above: true } : { top: below, left, above: false });
  };
  const hide = () => setPos(null);
  const open = pos !== null;

  // A fixed tooltip would drift from its trigger on scroll: hide it instead.
  useEffect(() => {
    if (!open) return;
    const onScroll = () => setPos(null);
    window.addEventListener("scroll", onScroll, { capture: true, passive: true });
    return () => window.removeEventListener("scroll", onScroll, { capture: true });
  }, [open]);

  return (
    <>
      <span
        ref={trigger}
        tabIndex={0}
        aria-describedby={id}
        data-testid={testId}
        onMouseEnter={show}
        onMouseLeave={hide}
        onFocus={show}
        onBlur={hide}
        onKeyDown={(e) => {
          if (e.key === "Escape") hide();
        }}
        className={`inline-flex cursor-default rounded outline-none focus-visible:ring-2 focus-visible:ring-[var(--accent)] focus-visible:ring-offset-1 ${className}`}
      >
        {children}
      </span>
      <span
        id={id}
        role="tooltip"
        hidden={pos === null}
        style={pos ? { position: "fixed", top: pos.top, left: pos.left, transform: pos.above ? "translateY(-100%)" : undefined } : undefined}
        className="pointer-events-none z-50 block max-w-72 rounded-md border border-default bg-[var(--bg)] px-2.5 py-2 text-left text-xs font-normal text-[var(--fg)] shadow-lg"
      >
        {content}
      </span>
    </>
  );
}
