/** A labelled form control with its help text and error, wired for screen readers. */
import { cloneElement, useId, type ReactElement } from 'react';

export interface FieldProps {
  label: string;
  help?: string;
  error?: string | null;
  children: ReactElement<Record<string, unknown>>;
}

export function Field({ label, help, error, children }: FieldProps) {
  const id = useId();
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const control = cloneElement(children, {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [errorId, helpId].filter(Boolean).join(' ') || undefined,
  });
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
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
