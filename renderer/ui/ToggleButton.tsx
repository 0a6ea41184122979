/** A small button that shows or hides a part of the screen, announcing whether it is open. */
import type { ReactNode } from 'react';

interface ToggleButtonProps {
  open: boolean;
  setOpen: (open: boolean) => void;
  /** The id of the part it shows or hides. */
  controls?: string;
  title?: string;
  disabled?: boolean;
  children: ReactNode;
}

export function ToggleButton({ open, setOpen, controls, title, disabled, children }: ToggleButtonProps) {
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-expanded={open}
      aria-controls={controls}
      title={title}
      disabled={disabled}
      onClick={() => setOpen(!open)}
    >
      {children}
    </button>
  );
}
