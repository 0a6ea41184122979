/** A tool the model called: its name, its arguments (pretty JSON when they parse) and the result that came back. */
import type { ToolCallItem } from './thread.js';

function pretty(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export function ToolCallView({ call }: { call: ToolCallItem }) {
  return (
    <section className="tool-call" aria-label={`Tool call ${call.name}`}>
      <p className="tool-call-head">
        <span className="badge">tool call</span> <code>{call.name}</code>
      </p>
      <p className="tool-call-label">Arguments</p>
      <pre className="tool-call-text">{pretty(call.arguments) || '(none)'}</pre>
      <p className="tool-call-label">Result</p>
      {call.result === undefined ? (
        <p className="muted">No result came back in this conversation.</p>
      ) : (
        <pre className="tool-call-text">{call.result}</pre>
      )}
    </section>
  );
}
