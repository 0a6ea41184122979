import type { ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import type { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import type { Example } from './corpus.js';

const ASSISTANT_HEADER = '<|im_start|>assistant\n';
const END = '<|im_end|>';

/** An example as the model sees it: the rendered conversation and which characters are learned. */
export function renderExample(template: ChatTemplate, ex: Example): { text: string; spans: Array<[number, number]> } {
  const text = template.render({ messages: ex.messages, tools: ex.tools, addGenerationPrompt: false });
  // The i-th assistant header in the text belongs to the i-th assistant message.
  const spans: Array<[number, number]> = [];
  let from = 0;
  const learnAssistant = ex.messages.flatMap((m, i) => (m.role === 'assistant' ? [ex.learn[i]] : []));
  for (const learn of learnAssistant) {
    const h = text.indexOf(ASSISTANT_HEADER, from);
    if (h < 0) throw new Error('the chat template did not render an assistant message');
    const start = h + ASSISTANT_HEADER.length;
    const end = text.indexOf(END, start);
    if (end < 0) throw new Error('an assistant message has no end token');
    if (learn) spans.push([start, end + END.length]);
    from = end;
  }
  return { text, spans };
}

/**
 * Token ids and per-token loss weights: `learned` for the tokens of learned assistant messages
 * (their end token included), `context` elsewhere. Each segment is tokenized on its own: every
 * boundary sits after a newline or at a special token, where tokenization splits anyway.
 */
export function encodeExample(
  template: ChatTemplate,
  tokenizer: TextTokenizer,
  ex: Example,
  weights: { learned: number; context: number },
): { ids: number[]; weights: number[] } {
  const { text, spans } = renderExample(template, ex);
  const ids: number[] = [];
  const w: number[] = [];
  let at = 0;
  const add = (s: string, weight: number) => {
    if (!s) return;
    const t = tokenizer.encode(s);
    for (const id of t) {
      ids.push(id);
      w.push(weight);
    }
  };
  for (const [a, b] of spans) {
    add(text.slice(at, a), weights.context);
    add(text.slice(a, b), weights.learned);
    at = b;
  }
  add(text.slice(at), weights.context);
  return { ids, weights: w };
}
