/**
 * Tools for the default model's agent examples (agentTurns.ts): each with its JSON schema, the
 * requests a person makes that need it, the arguments those requests imply, a plausible result
 * and an answer read from that result. TRAIN_TOOLS are trained on; HELD_OUT_TOOLS never are
 * (evalAgent.ts asks for them), so the eval measures choosing a tool by its name and description,
 * not by memory.
 */
import type { ToolSpec } from '../../main/engine/text/chatTemplate.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import type { Rng } from '../../main/util/random.js';

/** What a request is made from: the invented world and a few lists of everyday things. */
export interface AgentWorld {
  kb: KnowledgeBase;
  people: readonly string[];
  files: readonly string[];
  topics: readonly string[];
}

export const PEOPLE = ['Mara', 'Tobias', 'Ines', 'Kofi', 'Lena', 'Ravi', 'Sofia', 'Jonas', 'Aiko', 'Noah', 'Elif', 'Pavel'];
export const FILES = [
  'notes/todo.md',
  'README.md',
  'src/index.ts',
  'budget.csv',
  'docs/plan.md',
  'config.json',
  'journal/today.md',
  'package.json',
];
export const TOPICS = [
  'solar panels',
  'the local elections',
  'sourdough bread',
  'electric bikes',
  'the football final',
  'rent prices',
  'a jazz festival',
  'train strikes',
];

interface Request {
  question: string;
  args: Record<string, unknown>;
}

/** One tool and how people use it. */
export interface AgentTool {
  spec: ToolSpec;
  /** A request that needs the tool, and the arguments it implies. */
  ask(r: Rng, w: AgentWorld): Request;
  /** The tool's result for those arguments (JSON or plain text, as tools return). */
  result(r: Rng, args: Record<string, unknown>): string;
  /** The answer to the person, read from the result. */
  reply(args: Record<string, unknown>, result: string): string;
}

function tool(
  name: string,
  description: string,
  props: Record<string, { type: string; description?: string }>,
  required: string[],
): ToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: props, required } } };
}

const city = (r: Rng, w: AgentWorld) => r.pick(w.kb.countries).capital;
const str = (v: unknown) => String(v);

export const TRAIN_TOOLS: readonly AgentTool[] = [
  {
    spec: tool('get_weather', 'Get the current weather for a city.', { city: { type: 'string', description: 'City name' } }, ['city']),
    ask: (r, w) => {
      const c = city(r, w);
      return {
        question: r.pick([`what's the weather in ${c}?`, `Is it raining in ${c} right now?`, `How cold is it in ${c} today?`]),
        args: { city: c },
      };
    },
    result: (r, a) =>
      JSON.stringify({ city: a.city, temperature_c: r.int(-8, 33), sky: r.pick(['sunny', 'cloudy', 'rainy', 'windy', 'snowy']) }),
    reply: (a, res) => {
      const o = JSON.parse(res);
      return `It's ${o.temperature_c}°C and ${o.sky} in ${str(a.city)} right now.`;
    },
  },
  {
    spec: tool('web_search', 'Search the web and return the top results.', { query: { type: 'string', description: 'Search terms' } }, [
      'query',
    ]),
    ask: (r, w) => {
      const t = r.pick(w.topics);
      return {
        question: r.pick([`search the web for ${t}`, `Can you look up the latest on ${t}?`, `Find me something online about ${t}.`]),
        args: { query: t },
      };
    },
    result: (r, a) =>
      JSON.stringify({ results: [{ title: `${str(a.query)}: what we know`, snippet: `A short overview of ${str(a.query)}.` }] }),
    reply: (a) => `I found an overview of ${str(a.query)}: "${str(a.query)}: what we know". Want me to open it?`,
  },
  {
    spec: tool('read', 'Read a file from the workspace.', { path: { type: 'string', description: 'Path relative to the workspace' } }, [
      'path',
    ]),
    ask: (r, w) => {
      const f = r.pick(w.files);
      return { question: r.pick([`What's in ${f}?`, `read ${f} for me`, `Open ${f} and tell me what it says.`]), args: { path: f } };
    },
    result: (r, a) =>
      `# ${str(a.path)}\n- ${r.pick(['call the bank', 'fix the login bug', 'buy stamps', 'water the plants'])}\n- ${r.pick(['send the invoice', 'book the dentist', 'update the docs'])}`,
    reply: (a, res) =>
      `${str(a.path)} lists: ${res
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/^- /, ''))
        .join(' and ')}.`,
  },
  {
    spec: tool('write', 'Create or overwrite a file in the workspace.', { path: { type: 'string' }, content: { type: 'string' } }, [
      'path',
      'content',
    ]),
    ask: (r, w) => {
      const f = r.pick(w.files);
      const c = r.pick(['buy milk', 'meeting at 3', 'call Ines back']);
      return { question: r.pick([`Write "${c}" to ${f}.`, `save "${c}" in ${f}`]), args: { path: f, content: c } };
    },
    result: (_r, a) => JSON.stringify({ ok: true, bytes: str(a.content).length }),
    reply: (a) => `Done: ${str(a.path)} now says "${str(a.content)}".`,
  },
  {
    spec: tool(
      'exec',
      'Run a shell command in the workspace and return its output.',
      { command: { type: 'string', description: 'The command line' } },
      ['command'],
    ),
    ask: (r) => {
      const [q, c] = r.pick([
        ['list the files here', 'ls'],
        ['What is the current git branch?', 'git branch --show-current'],
        ['how much disk space is left?', 'df -h .'],
        ['Run the tests.', 'npm test'],
      ]);
      return { question: q, args: { command: c } };
    },
    result: (r, a) =>
      str(a.command) === 'ls'
        ? 'README.md\nnotes\nsrc'
        : str(a.command).startsWith('git')
          ? 'main'
          : `exit 0\n${r.int(2, 40)} lines of output`,
    reply: (a, res) => `\`${str(a.command)}\` printed:\n${res}`,
  },
  {
    spec: tool('send_message', 'Send a chat message to a contact.', { to: { type: 'string' }, text: { type: 'string' } }, ['to', 'text']),
    ask: (r, w) => {
      const p = r.pick(w.people);
      const t = r.pick(["I'll be ten minutes late", 'dinner is at seven', 'the keys are under the mat']);
      return { question: r.pick([`Tell ${p} that ${t}.`, `message ${p}: ${t}`]), args: { to: p, text: t } };
    },
    result: () => JSON.stringify({ status: 'sent' }),
    reply: (a) => `Sent to ${str(a.to)}: "${str(a.text)}".`,
  },
  {
    spec: tool(
      'set_reminder',
      'Set a reminder at a time.',
      { time: { type: 'string', description: 'e.g. 18:30' }, text: { type: 'string' } },
      ['time', 'text'],
    ),
    ask: (r) => {
      const h = `${r.int(7, 21)}:${r.pick(['00', '15', '30', '45'])}`;
      const t = r.pick(['take the medicine', 'call mum', 'leave for the station']);
      return { question: r.pick([`Remind me to ${t} at ${h}.`, `set a reminder for ${h} to ${t}`]), args: { time: h, text: t } };
    },
    result: (r) => JSON.stringify({ id: r.int(100, 999), ok: true }),
    reply: (a) => `Reminder set for ${str(a.time)}: ${str(a.text)}.`,
  },
  {
    spec: tool(
      'calendar_events',
      "List the events in the user's calendar on a day.",
      { date: { type: 'string', description: 'today, tomorrow or YYYY-MM-DD' } },
      ['date'],
    ),
    ask: (r) => {
      const d = r.pick(['today', 'tomorrow']);
      return { question: r.pick([`What's on my calendar ${d}?`, `do I have meetings ${d}?`]), args: { date: d } };
    },
    result: (r) =>
      JSON.stringify({
        events: [{ time: `${r.int(8, 17)}:00`, title: r.pick(['Team sync', 'Dentist', 'Lunch with Kofi', 'Budget review']) }],
      }),
    reply: (a, res) => {
      const e = JSON.parse(res).events[0];
      return `${str(a.date)[0].toUpperCase()}${str(a.date).slice(1)} you have ${e.title} at ${e.time}.`;
    },
  },
  {
    spec: tool(
      'convert_currency',
      'Convert an amount between currencies.',
      { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
      ['amount', 'from', 'to'],
    ),
    ask: (r, w) => {
      const [a, b] = r
        .shuffle(w.kb.countries)
        .slice(0, 2)
        .map((c) => c.currency);
      const n = r.int(5, 500);
      return { question: r.pick([`How many ${b} is ${n} ${a}?`, `convert ${n} ${a} to ${b}`]), args: { amount: n, from: a, to: b } };
    },
    result: (r, a) => JSON.stringify({ amount: Number(a.amount) * r.int(2, 9), currency: a.to }),
    reply: (a, res) => `${str(a.amount)} ${str(a.from)} is ${JSON.parse(res).amount} ${str(a.to)}.`,
  },
  {
    spec: tool('get_time', 'Current local time in a city.', { city: { type: 'string' } }, ['city']),
    ask: (r, w) => {
      const c = city(r, w);
      return { question: r.pick([`What time is it in ${c}?`, `current time in ${c}?`]), args: { city: c } };
    },
    result: (r) => JSON.stringify({ time: `${r.int(0, 23)}:${String(r.int(0, 59)).padStart(2, '0')}` }),
    reply: (a, res) => `It's ${JSON.parse(res).time} in ${str(a.city)}.`,
  },
  {
    spec: tool('memory_search', "Search the assistant's long-term memory notes.", { query: { type: 'string' } }, ['query']),
    ask: (r, w) => {
      const p = r.pick(w.people);
      return { question: r.pick([`What did I note about ${p}?`, `do you remember what ${p} likes?`]), args: { query: p } };
    },
    result: (r, a) => JSON.stringify({ matches: [`${str(a.query)} likes ${r.pick(['green tea', 'hiking', 'chess', 'old films'])}`] }),
    reply: (_a, res) => `Your notes say: ${JSON.parse(res).matches[0]}.`,
  },
  {
    spec: tool('create_note', 'Save a note with a title and body.', { title: { type: 'string' }, body: { type: 'string' } }, [
      'title',
      'body',
    ]),
    ask: (r) => {
      const [t, b] = r.pick([
        ['Groceries', 'eggs, rice, apples'],
        ['Ideas', 'a bike trip in May'],
        ['Gift list', 'a scarf for Lena'],
      ]);
      return { question: r.pick([`Make a note called ${t}: ${b}`, `note down "${b}" under ${t}`]), args: { title: t, body: b } };
    },
    result: () => JSON.stringify({ saved: true }),
    reply: (a) => `Saved the note "${str(a.title)}".`,
  },
  {
    spec: tool('get_news', 'Latest news headlines on a topic.', { topic: { type: 'string' } }, ['topic']),
    ask: (r, w) => {
      const t = r.pick(w.topics);
      return { question: r.pick([`Any news about ${t}?`, `what are the headlines on ${t}`]), args: { topic: t } };
    },
    result: (_r, a) => JSON.stringify({ headlines: [`New report on ${str(a.topic)} published`] }),
    reply: (_a, res) => `The top headline: ${JSON.parse(res).headlines[0]}.`,
  },
  {
    spec: tool('translate', 'Translate text into another language.', { text: { type: 'string' }, target_language: { type: 'string' } }, [
      'text',
      'target_language',
    ]),
    ask: (r, w) => {
      const l = r.pick(w.kb.countries).language;
      const t = r.pick(['good morning', 'where is the station?', 'thank you very much']);
      return { question: r.pick([`Translate "${t}" into ${l}.`, `how do you say "${t}" in ${l}?`]), args: { text: t, target_language: l } };
    },
    result: (r) => JSON.stringify({ translation: r.pick(['sela moru', 'dak vinta?', 'brel ostan']) }),
    reply: (a, res) => `In ${str(a.target_language)}, "${str(a.text)}" is "${JSON.parse(res).translation}".`,
  },
];

export const HELD_OUT_TOOLS: readonly AgentTool[] = [
  {
    spec: tool('stock_quote', 'Get the latest share price of a company by its ticker symbol.', { symbol: { type: 'string' } }, ['symbol']),
    ask: (r) => {
      const s = r.pick(['ACME', 'GLOBX', 'INITECH', 'UMBRA']);
      return { question: r.pick([`What's the share price of ${s}?`, `how is ${s} stock doing?`]), args: { symbol: s } };
    },
    result: (r) => JSON.stringify({ price: r.int(10, 900) }),
    reply: (a, res) => `${str(a.symbol)} is at ${JSON.parse(res).price}.`,
  },
  {
    spec: tool('track_package', 'Where a parcel is, by its tracking number.', { tracking_number: { type: 'string' } }, ['tracking_number']),
    ask: (r) => {
      const n = `TRK${r.int(100000, 999999)}`;
      return { question: r.pick([`Where is my parcel ${n}?`, `track package ${n}`]), args: { tracking_number: n } };
    },
    result: (r) => JSON.stringify({ status: r.pick(['in transit', 'out for delivery', 'delivered']) }),
    reply: (a, res) => `Parcel ${str(a.tracking_number)} is ${JSON.parse(res).status}.`,
  },
  {
    spec: tool('find_recipe', 'Find a recipe for a dish.', { dish: { type: 'string' } }, ['dish']),
    ask: (r) => {
      const d = r.pick(['lentil soup', 'pancakes', 'a green curry', 'banana bread']);
      return { question: r.pick([`Find me a recipe for ${d}.`, `how do I make ${d}?`]), args: { dish: d } };
    },
    result: (r, a) => JSON.stringify({ title: str(a.dish), minutes: r.int(15, 90) }),
    reply: (a, res) => `Here's a recipe for ${str(a.dish)}; it takes about ${JSON.parse(res).minutes} minutes.`,
  },
  {
    spec: tool('lookup_contact', "Look up a person's phone number and email in the address book.", { name: { type: 'string' } }, ['name']),
    ask: (r, w) => {
      const p = r.pick(w.people);
      return { question: r.pick([`What's ${p}'s phone number?`, `find the email address of ${p}`]), args: { name: p } };
    },
    result: (r, a) =>
      JSON.stringify({ phone: `+47 ${r.int(1000, 9999)} ${r.int(1000, 9999)}`, email: `${str(a.name).toLowerCase()}@example.org` }),
    reply: (a, res) => `${str(a.name)}: ${JSON.parse(res).phone}, ${JSON.parse(res).email}.`,
  },
  {
    spec: tool('flight_status', 'Status of a flight by its flight number.', { flight: { type: 'string' } }, ['flight']),
    ask: (r) => {
      const f = `${r.pick(['KL', 'SK', 'LH', 'BA'])}${r.int(100, 999)}`;
      return { question: r.pick([`Is flight ${f} on time?`, `status of flight ${f}?`]), args: { flight: f } };
    },
    result: (r) => JSON.stringify({ status: r.pick(['on time', 'delayed 40 minutes', 'boarding']) }),
    reply: (a, res) => `Flight ${str(a.flight)} is ${JSON.parse(res).status}.`,
  },
];
