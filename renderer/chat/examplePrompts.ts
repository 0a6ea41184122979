/**
 * The prompts a new conversation offers on first launch: ones the bundled model (clawloop-mini)
 * answers right, greedy and sampled at its generation_config.json (temperature 0.7, top_p 0.95).
 * Each carries the number a right answer ends with, so the measurement can check it:
 * test/defaultModel/examplePrompts.test.ts (greedy, every shipped prompt) and
 * `node dist/scripts/default-model/examplePrompts.js` (sampled, with other candidates).
 */
export interface ExamplePrompt {
  prompt: string;
  /** The answer's last number when it is right. */
  answer: number;
}

export const EXAMPLE_PROMPTS: readonly ExamplePrompt[] = [
  { prompt: 'How many minutes are in 3 hours?', answer: 180 },
  { prompt: 'Convert 2 kilometers to meters.', answer: 2000 },
  { prompt: 'Leo has 25 marbles. He buys 8 more. How many marbles does he have now?', answer: 33 },
];
