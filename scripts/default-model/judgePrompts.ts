/**
 * The default model's own judge prompts (shipped as `clawloop_judges.json` in its folder): short,
 * because a small model reads them on every judged turn, and in the formats of docs/learning-loop.md §2.
 */
import type { JudgePrompts } from '../../main/rl/judgePrompts.js';

const CASE = `Assistant's response:
{response}

Next message ({next_state_role}):
{next_state}`;

export const DEFAULT_MODEL_JUDGE_PROMPTS: JudgePrompts = {
  prm: {
    system: "You judge whether an assistant's response did what the user wanted, from what came next.",
    user: `${CASE}

Did the response do what the user wanted? A request to change or fix it means no; thanks or moving on means yes; a tool result without errors means yes. Think briefly, then answer \\boxed{1} (yes), \\boxed{-1} (no) or \\boxed{0} (unclear).`,
  },
  hint: {
    system: 'You turn what a user said after a response into a hint that would have made the response better.',
    user: `${CASE}

Does the next message show how the response should have been different? If it does, answer \\boxed{1} and a one-sentence hint between [HINT_START] and [HINT_END]. If it does not, answer \\boxed{-1}.`,
  },
};
