/**
 * Markdown to HTML for answers: raw HTML off (the model's text can never inject markup), links
 * opened outside the app, code blocks with their language and a Copy button, highlighted for a handful of languages (registered one by one to
 * keep the bundle small; others are shown plain). Loaded after the first screen (see Markdown.tsx).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import MarkdownIt from 'markdown-it';

hljs.registerLanguage('bash', bash);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('python', python);
hljs.registerLanguage('typescript', typescript);
hljs.registerAliases(['sh', 'shell', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code, lang) {
    if (lang && hljs.getLanguage(lang)) {
      try {
        return `<pre class="hljs"><code>${hljs.highlight(code, { language: lang, ignoreIllegals: true }).value}</code></pre>`;
      } catch {
        // fall back to plain text below
      }
    }
    return `<pre class="hljs"><code>${escapeHtml(code)}</code></pre>`;
  },
});

type RenderRule = NonNullable<(typeof md.renderer.rules)['link_open']>;
const defaultLink: RenderRule =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
const linkOpen: RenderRule = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return defaultLink(tokens, idx, options, env, self);
};
md.renderer.rules.link_open = linkOpen;

/** A code block with its language named above it and a Copy button (Markdown.tsx handles its clicks). */
const defaultFence: RenderRule = md.renderer.rules.fence ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
const fence: RenderRule = (tokens, idx, options, env, self) => {
  const lang = escapeHtml(tokens[idx].info.trim().split(/\s+/)[0] || 'text');
  const head = `<div class="code-head"><span class="code-lang">${lang}</span><button type="button" class="btn btn-small code-copy" aria-label="Copy ${lang} code">Copy</button></div>`;
  return `<div class="code-block">${head}${defaultFence(tokens, idx, options, env, self)}</div>`;
};
md.renderer.rules.fence = fence;

export function renderMarkdown(text: string): string {
  return md.render(text);
}
