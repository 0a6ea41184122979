/**
 * Copy buttons on answers and on code blocks, with the code's language named above it
 * (issue 42, must-be-true 3).
 */
import { coreApi, expect, test, type Core } from './fixtures.js';

const CODE = 'def minutes(hours):\n    return hours * 60';

async function seed(core: Core): Promise<void> {
  // A conversation whose history holds an answer with a code block, as a client such as OpenClaw sends it.
  const messages = [
    { role: 'user', content: 'Write a function that turns hours into minutes.' },
    { role: 'assistant', content: `Here it is:\n\n\`\`\`python\n${CODE}\n\`\`\`` },
    { role: 'user', content: 'How many minutes are in 3 hours?' },
  ];
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': 'copy-e2e', 'x-turn-type': 'main' },
    body: JSON.stringify({ messages, max_tokens: 16 }),
  });
  expect(res.status).toBe(200);
  await fetch(`${core.process.origin}/api/sessions/copy-e2e`, {
    method: 'PATCH',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Copy e2e' }),
  });
}

test('a code block names its language and copies its code; Copy answer copies the answer', async ({ app, core, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await seed(core);
  await app.reload();
  await app.getByRole('button', { name: /^Copy e2e/ }).click();
  const thread = app.getByRole('list', { name: 'Messages' });
  await expect(thread.getByText('python', { exact: true })).toBeVisible();
  await thread.getByRole('button', { name: 'Copy python code' }).click();
  await expect(thread.getByRole('button', { name: 'Copy python code' })).toHaveText('Copied');
  expect(await app.evaluate(() => navigator.clipboard.readText())).toBe(`${CODE}\n`);

  // The answer as the model wrote it (its Markdown source), not as shown.
  const session = (await coreApi(core, 'GET', '/api/sessions/copy-e2e')) as { turns: Array<{ response: string }> };
  const last = thread.getByRole('article', { name: /^Answer from v\d+$/ }).last();
  await last.getByRole('button', { name: 'Copy answer' }).click();
  await expect(last.getByRole('button', { name: 'Copy answer' })).toHaveText(/Copied/);
  expect(await app.evaluate(() => navigator.clipboard.readText())).toBe(session.turns.at(-1)!.response);
});
