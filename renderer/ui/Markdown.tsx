/**
 * An answer as Markdown. The renderer (markdown-it and highlight.js, a third of the app's code) is
 * loaded right after the first screen, not before it: until it is there (a moment after start), an
 * answer shows as plain text with its line breaks.
 */
import { memo, useEffect, useMemo, useState } from 'react';

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

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const render = useRenderer();
  const html = useMemo(() => (render ? render(text) : null), [render, text]);
  if (html === null) return <div className="markdown markdown-plain">{text}</div>;
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
});
