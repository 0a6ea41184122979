/** Connect: the OpenClaw provider entry, base URL, API key and a connection test; what is served. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { Info } from '../api/contract.js';
import { bytes, params } from '../ui/format.js';
import { ErrorText } from '../ui/ErrorText.js';
import { OutcomeText } from '../ui/OutcomeText.js';
import { Stat } from '../ui/Stat.js';
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

function ModelStats({ info }: { info: Info }) {
  return (
    <dl className="stats">
      <Stat label="Model name">{info.served_model_name}</Stat>
      <Stat label="Size">
        {params(info.model.parameters)} parameters ({info.model.architecture})
      </Stat>
      <Stat label="Context">{info.model.context_length} tokens</Stat>
      <Stat label="Backend">{info.model.backend}</Stat>
      <Stat label="Memory">{bytes(info.memory.rss_bytes)}</Stat>
      <Stat label="Base URL">
        <code>{info.base_url}</code> <CopyButton text={info.base_url} label="Copy URL" />
      </Stat>
    </dl>
  );
}

function ConnectionTest() {
  const { connect } = useServices();
  const testing = useStore(connect, (s) => s.testing);
  const result = useStore(connect, (s) => s.testResult);
  return (
    <div className="row">
      <button type="button" className="btn" disabled={testing} onClick={() => void connect.getState().test()}>
        Test connection
      </button>
      {result && <OutcomeText ok={result.ok}>{result.message}</OutcomeText>}
    </div>
  );
}

function ServedModel({ info }: { info: Info | null }) {
  return (
    <section className="card" aria-labelledby="served-title">
      <h2 id="served-title">Served model</h2>
      {info ? <ModelStats info={info} /> : <p className="muted">Loading…</p>}
      <ConnectionTest />
    </section>
  );
}

function OpenClawEntry({ info }: { info: Info | null }) {
  // A model OpenClaw refuses gets the reason, not an entry that would not load (as `clawloop serve` and `clawloop openclaw` do).
  const snippet = info && !info.openclaw_note ? JSON.stringify(info.openclaw_provider, null, 2) : '';
  return (
    <section className="card" aria-labelledby="openclaw-title">
      <h2 id="openclaw-title">OpenClaw</h2>
      {info?.openclaw_note && <p role="note">{info.openclaw_note}</p>}
      {snippet && (
        <>
          <p>
            Run <code>node bin/clawloop.js openclaw</code> in the ClawLoop folder to merge this into <code>~/.openclaw/openclaw.json</code>{' '}
            (it keeps a backup and shows what it changed), or merge it by hand. OpenClaw uses a changed entry at once.
          </p>
          <pre className="snippet" tabIndex={0} aria-label="OpenClaw provider entry">
            <code>{snippet}</code>
          </pre>
          <CopyButton text={snippet} label="Copy" />
        </>
      )}
    </section>
  );
}

export function ConnectScreen() {
  const { core } = useServices();
  const info = useStore(core, (s) => s.info);
  const infoError = useStore(core, (s) => s.infoError);
  useEffect(() => void core.getState().refresh(), [core]);
  return (
    <div className="connect">
      <h1>Connect</h1>
      {infoError && !info && <ErrorText>Could not read what the core serves: {infoError}</ErrorText>}
      <ServedModel info={info} />
      <ApiKeySection keySet={info?.api_key_set ?? null} />
      <OpenClawEntry info={info} />
    </div>
  );
}
