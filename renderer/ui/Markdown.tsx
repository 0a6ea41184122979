/**
 * An answer as Markdown. The renderer (markdown-it and highlight.js, a third of the app's code) is
 * loaded right after the first screen, not before it: until it is there (a moment after start), an
 * answer shows as plain text with its line breaks.
 */
import { memo, useEffect, useMemo, useState, type MouseEvent } from 'react';
import { copyText } from './copyText.js';

type Render = (text: string) => string;

let loaded: Render | null = null;
const loading: Promise<Render> = import('./markdownRenderer.js').then((m) => (loaded = m.renderMarkdown));

function useRenderer(): Render | null {
  const [render, setRender] = useState<Render | null>(() => loaded);
  useEffect(() => {
    if (!render) void loading.then((r) => setRender(() => r));
  }, [render]);
  return render;
}

/** A code block's Copy button (rendered in the HTML, so handled here): copies the block's code. */
async function copyCode(e: MouseEvent<HTMLDivElement>): Promise<void> {
  const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button.code-copy');
  const code = button?.closest('.code-block')?.querySelector('code')?.textContent;
  if (!button || code === undefined || code === null) return;
  const ok = await copyText(code);
  button.textContent = ok ? 'Copied' : 'Copy failed';
  setTimeout(() => (button.textContent = 'Copy'), 1500);
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const render = useRenderer();
  const html = useMemo(() => (render ? render(text) : null), [render, text]);
  if (html === null) return <div className="markdown markdown-plain">{text}</div>;
  return <div className="markdown" onClick={copyCode} dangerouslySetInnerHTML={{ __html: html }} />;
});
