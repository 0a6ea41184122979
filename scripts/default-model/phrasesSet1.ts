/**
 * Phrase set 1 of what users say after an answer (scripts/default-model/feedback.ts composes
 * them): complaint openers and cores per style wish, satisfied and unclear replies, and the
 * held-out pools that are never used in training.
 */

/** The style wishes a complaint can carry (a key of every per-wish phrase table). */
export type StyleWish = 'want-plain' | 'want-terse' | 'want-warm' | 'want-markdown';

export const COMPLAINT_OPENERS = [
  '',
  '',
  '',
  'hmm, ',
  'ugh, ',
  'no, ',
  'nope. ',
  'wait, ',
  'ok but ',
  'thanks, but ',
  'not quite. ',
  'sorry, ',
  'honestly, ',
  'come on, ',
  'again? ',
  'meh. ',
  'that is not what I asked for. ',
];

export const CORE: Record<StyleWish, string[]> = {
  'want-plain': [
    'no bold or bullet points please',
    'can you write it without the markdown',
    'this looks way too AI-generated',
    'drop the headings and the lists',
    'my teacher will know a bot wrote this',
    'just write it like a normal person would',
    'please use normal sentences, no formatting',
    'lose the bold text and the numbered list',
    'it needs to look like I wrote it myself',
    'too much formatting, just plain text',
    'why all the asterisks and headings?',
    "I can't hand this in with all these bullet points",
    'write it as a regular paragraph',
    'no lists, no bold, just sentences',
    'stop formatting everything like a robot',
    'this screams chatbot, tone it down',
    'can you make it look less like AI wrote it',
    'get rid of the headings please',
    'plain text only, I have to copy it into my homework',
    'the formatting is too much',
  ],
  'want-terse': [
    'too long',
    'just the answer please',
    'I only need the number',
    'shorter please',
    'tl;dr?',
    'way too wordy, one line is enough',
    'skip the explanation',
    'can you keep it brief',
    'less text please',
    'just give me the result',
    "I don't need all the steps",
    'way too much text',
    'cut it down to the answer',
    'short answers only',
    'I asked a quick question, give me a quick answer',
    'no need to explain, just answer',
    'keep it to one line',
    "that's an essay, I wanted one word",
  ],
  'want-warm': [
    "that's a bit harsh for a kid",
    'be nicer to the student',
    'more encouraging please',
    'can you make the comment friendlier',
    'say what they did well, specifically',
    'too cold and generic',
    'mention the exact step they got right',
    'kids need kind, specific feedback',
    'sounds like a robot, be warmer',
    'this would upset a child, soften it',
    'add some praise and point to the actual steps',
    'I want comments that encourage them',
    'be more supportive in the comment',
    'that feedback is too blunt',
    'can you sound more like a caring teacher',
    'point to their specific calculation and be kind about it',
  ],
  'want-markdown': [
    'can you format this with headings',
    'use a numbered list please',
    'hard to read, add some bold and bullets',
    'structure it with the steps in a list',
    'can you lay it out more clearly with a list',
    'please bold the answer and list the steps',
    'a wall of text, format it please',
    'I like headings and bullet points, use them',
  ],
};

export const CORE_TAILS: Partial<Record<StyleWish, string[]>> = {
  'want-plain': [
    '',
    '',
    '',
    ' but keep the steps',
    ', I still need all the working',
    ' and keep every step',
    ', just sentences with the math in them',
  ],
  'want-terse': ['', '', '', ', thanks', ' next time'],
  'want-warm': ['', '', '', ', they are only eight', ', please', ' in your comments'],
  'want-markdown': ['', '', ' please', ', thanks'],
};

export const END_MARKS = ['', '.', '!', '.', ' please.', ' 🙄', '...'];

/** Held-out complaints: never used in training; they measure whether the judges generalise. */
export const HELD_OUT_COMPLAINTS: Record<StyleWish, string[]> = {
  'want-plain': [
    'Could you redo this without all the fancy formatting? Regular sentences are fine.',
    'My professor hates bullet points. Please rewrite it as a paragraph.',
    'Why is half of it bold? Write it normally.',
    'This is obviously machine-made, write it more naturally, no headers.',
    'I need to paste this into my essay, so no markdown symbols please.',
    'Remove the list formatting and just explain it in words.',
  ],
  'want-terse': [
    'Just the number, I am in a hurry.',
    'Can you answer in a few words next time?',
    'That is way more than I needed. Only the result.',
    'Please be brief.',
    'I did not ask for a lecture. Short answer.',
    'One word would do.',
  ],
  'want-warm': [
    'This comment would make my student cry. Can you be gentler and name what she did?',
    'Please write it the way a friendly teacher would, with specific praise.',
    'Feels cold. Encourage him and mention his actual working.',
    'Be kinder, and say exactly which step was right.',
    'My pupils respond better to warm feedback that is specific.',
    'Way too blunt for a nine-year-old.',
  ],
  'want-markdown': ['Can you put the steps in a numbered list with a heading?', 'Please format it nicely with bold and bullets.'],
};

export const SATISFIED = [
  'perfect, thanks!',
  "great, that's exactly what I needed",
  'thank you!',
  'awesome, got it',
  'that works, thanks',
  'nice, this is much better',
  "yes! that's the style I want",
  'ok cool. next one?',
  'brilliant, thanks a lot',
  '👍',
  'thanks, that helps a lot',
  'exactly right, thank you',
  'great, moving on to the next question',
  'love it',
  'that is perfect',
  'cheers, that is what I wanted',
  'yes, like that',
  'super helpful, thanks',
  'ok that is good, thanks',
  'spot on',
];

/** Held-out satisfied replies. */
export const HELD_OUT_SATISFIED = [
  'Wonderful, this is just right.',
  'Much appreciated, I will use this.',
  'Okay, this is what I was after. Next question coming.',
  'Yes, that is how I like it!',
  'Fantastic, thank you so much.',
  'Good, that one is done. On to the next.',
];

export const UNCLEAR = [
  'hmm',
  'ok',
  'what time is it?',
  'let me think about it',
  'interesting',
  "I'll check later",
  'is it going to rain today?',
  'wait',
  'huh',
  'lol',
  'what should I cook tonight?',
  'my cat just jumped on the keyboard',
  'brb',
  'who won the game yesterday?',
  '...',
  'I see',
];

/** Held-out unclear replies. */
export const HELD_OUT_UNCLEAR = ['Hold on, my phone is ringing.', 'Do you like music?', 'Hmm, maybe.', 'What day is it today?'];
