/**
 * An OpenClaw conversation as a person reads it in Chat (issue 36, item 7): the title in the user's
 * own words (OpenClaw's timestamp envelope taken off), a tool call with its name, arguments and
 * result, every answer labelled with its version, side turns shown and marked, and requests without
 * a session listed too. Long words and lines wrap (issue 42, problem 5).
 */
import { expect, test, type Core } from './fixtures.js';

const SESSION = 'openclaw-e2e';
const SYSTEM = { role: 'system', content: 'You are a personal assistant running inside OpenClaw.' };
const ASK = { role: 'user', content: '[Fri 2026-11-27 12:03 UTC] Convert 2 km to meters.' };
const LONG = `https://example.org/${'a'.repeat(700)}`;

async function ask(core: Core, messages: unknown[], headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ messages, max_tokens: 24 }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content;
}

/** What OpenClaw sends: its envelope, a history without the system prompt on the next call, a tool round, a helper call. */
async function openclawSession(core: Core): Promise<void> {
  const main = { 'x-session-id': SESSION, 'x-turn-type': 'main' };
  const first = await ask(core, [SYSTEM, ASK], main);
  // The next request leaves the system prompt out: the first answer is found by its text, not its position.
  const next = { role: 'user', content: '[Fri 2026-11-27 12:04 UTC] And the weather in Paris?' };
  const call = { id: 'call_e2e', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } };
  const history = [ASK, { role: 'assistant', content: first }, next, { role: 'assistant', content: null, tool_calls: [call] }];
  await ask(core, [...history, { role: 'tool', tool_call_id: 'call_e2e', content: `18 °C, sunny. Source: ${LONG}` }], main);
  await ask(core, [{ role: 'user', content: 'Summarize the conversation so far in one line.' }], {
    'x-session-id': SESSION,
    'x-turn-type': 'side',
  });
  await ask(core, [{ role: 'user', content: 'How many seconds are in 5 minutes?' }], {});
}

test.describe('OpenClaw conversations in Chat', () => {
  test.use({ viewport: { width: 1024, height: 640 } });

  test('titles without the envelope, tool calls with name, arguments and result, versions on every answer, side turns marked and listed', async ({
    app,
    core,
  }) => {
    await openclawSession(core);
    await app.reload();
    const list = app.getByRole('complementary', { name: 'Conversations' });
    // The newest conversation of that title (other specs ask it too): the one just recorded.
    const convo = list.getByRole('button', { name: /^Convert 2 km to meters\./ }).first();
    await expect(convo).toBeVisible();
    await expect(list.getByRole('button', { name: /^\[Fri/ })).toHaveCount(0);
    await convo.click();

    const thread = app.getByRole('list', { name: 'Messages' });
    await expect(thread.getByRole('article', { name: 'Your message' }).first()).toHaveText(/Convert 2 km to meters\./);
    const tool = thread.getByRole('region', { name: 'Tool call get_weather' });
    await expect(tool).toContainText('"city": "Paris"');
    await expect(tool).toContainText('18 °C, sunny');
    // Every answer the core wrote says which version wrote it; none is left at "…".
    const answers = thread.getByRole('article', { name: /^Answer from v\d+$/ });
    await expect(answers).toHaveCount(2);
    await expect(thread.getByText('…', { exact: true })).toHaveCount(0);
    const side = thread.getByRole('article', { name: /^Side turn answered by v\d+$/ });
    await expect(side).toContainText('side turn · not trained on');
    await expect(side).toContainText('Summarize the conversation so far in one line.');

    // Long words and lines wrap: the thread never scrolls sideways.
    const overflow = await thread.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await app.screenshot({ path: test.info().outputPath('openclaw-thread.png') });

    await list.getByRole('button', { name: /^Requests without a session/ }).click();
    await expect(thread.getByRole('article', { name: /^Side turn answered by v\d+$/ })).toContainText('How many seconds are in 5 minutes?');
  });

  test('a long word typed in the composer wraps in the thread', async ({ app }) => {
    await app.getByRole('button', { name: 'New conversation', exact: true }).click();
    // One unbroken word far wider than the thread, in a message the model can still read.
    await app.getByRole('textbox', { name: 'Message' }).fill(`Please read https://example.org/${'a'.repeat(300)}`);
    await app.getByRole('button', { name: 'Send' }).click();
    const thread = app.getByRole('list', { name: 'Messages' });
    await expect(thread.getByRole('article', { name: 'Your message' })).toBeVisible();
    expect(await thread.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    await app
      .getByRole('button', { name: 'Stop' })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
  });
});
