/** Connect: the OpenClaw provider entry, base URL, API key and a connection test; what is served. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { bytes, params } from '../ui/format.js';
import { ApiKeySection } from './ApiKeySection.js';

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <span className="row">
      <button
        type="button"
        className="btn btn-small"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied('Copied.');
          } catch {
            setCopied('Copying was refused by the browser: select the text and copy it.');
          }
        }}
      >
        {label}
      </button>
      {copied && <span role="status">{copied}</span>}
    </span>
  );
}

export function ConnectScreen() {
  const { core, connect } = useServices();
  const info = useStore(core, (s) => s.info);
  const infoError = useStore(core, (s) => s.infoError);
  const testing = useStore(connect, (s) => s.testing);
  const result = useStore(connect, (s) => s.testResult);
  useEffect(() => void core.getState().refresh(), [core]);
  const snippet = info ? JSON.stringify(info.openclaw_provider, null, 2) : '';

  return (
    <div className="connect">
      <h1>Connect</h1>
      {infoError && !info && (
        <p className="error-text" role="alert">
          Could not read what the core serves: {infoError}
        </p>
      )}
      <section className="card" aria-labelledby="served-title">
        <h2 id="served-title">Served model</h2>
        {info ? (
          <dl className="stats">
            <div>
              <dt>Model name</dt>
              <dd>{info.served_model_name}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd>
                {params(info.model.parameters)} parameters ({info.model.architecture})
              </dd>
            </div>
            <div>
              <dt>Context</dt>
              <dd>{info.model.context_length} tokens</dd>
            </div>
            <div>
              <dt>Backend</dt>
              <dd>{info.model.backend}</dd>
            </div>
            <div>
              <dt>Memory</dt>
              <dd>{bytes(info.memory.rss_bytes)}</dd>
            </div>
            <div>
              <dt>Base URL</dt>
              <dd>
                <code>{info.base_url}</code> <CopyButton text={info.base_url} label="Copy URL" />
              </dd>
            </div>
          </dl>
        ) : (
          <p className="muted">Loading…</p>
        )}
        <div className="row">
          <button type="button" className="btn" disabled={testing} onClick={() => void connect.getState().test()}>
            Test connection
          </button>
          {result && (
            <span role="status" className={result.ok ? 'ok-text' : 'error-text'}>
              {result.message}
            </span>
          )}
        </div>
      </section>
      <ApiKeySection keySet={info?.api_key_set ?? null} />
      <section className="card" aria-labelledby="openclaw-title">
        <h2 id="openclaw-title">OpenClaw</h2>
        <p>
          Merge this into <code>~/.openclaw/openclaw.json</code>, then delete <code>~/.openclaw/agents/main/agent/models.json</code> if an older URL is cached there.
        </p>
        {snippet && (
          <>
            <pre className="snippet" tabIndex={0} aria-label="OpenClaw provider entry">
              <code>{snippet}</code>
            </pre>
            <CopyButton text={snippet} label="Copy" />
          </>
        )}
      </section>
    </div>
  );
}
