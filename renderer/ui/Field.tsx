/** A labelled form control with its help text and error, wired for screen readers. */
import { cloneElement, useId, type ReactElement } from 'react';

export interface FieldProps {
  label: string;
  help?: string;
  error?: string | null;
  /** Why the field's range is what it is: shown on hover over the label and over the control alike. */
  reason?: string;
  children: ReactElement<Record<string, unknown>>;
}

export function Field({ label, help, error, reason, children }: FieldProps) {
  const id = useId();
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const control = cloneElement(children, {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [errorId, helpId].filter(Boolean).join(' ') || undefined,
    ...(reason ? { title: reason } : {}),
  });
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id} title={reason}>
        {label}
      </label>
      {control}
      {help && (
        <small id={helpId} className="help">
          {help}
        </small>
      )}
      {error && (
        <small id={errorId} className="error-text" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}
