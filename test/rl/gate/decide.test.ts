import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decide, type GateMeasure, type GateReference, type GateSettings, type Verdict } from '../../../main/rl/gate/decide.js';
import type { FamilyScore } from '../../../main/rl/gate/families.js';

/** The shipped settings: a 3-point margin, 15 points per family. */
const SHIPPED: GateSettings = { competence_margin: 0.03, competence_family_margin: 0.15 };
const REF: GateReference = { accuracy: 0.75, source: 'step-000002' };
/** A rise on the sample, unconfirmed over the base model's 87.5 %. */
const RISEN: GateReference = { accuracy: 0.9, source: 'step-000002', floor: { accuracy: 0.875, source: 'base' } };
const LIVE: Verdict = { kind: 'live' };
const CONFIRM: Verdict = { kind: 'confirm reference' };
const held = (reason: string): Verdict => ({ kind: 'held back', reason });

const FAMILIES: FamilyScore[] = [
  { family: 'facts', n: 24, accuracy: 0.5, base: 0.75, live: 0.75 },
  { family: 'sums', n: 34, accuracy: 0.5, base: 0.8, live: 0.7 },
  { family: 'units', n: 19, accuracy: 0.9, base: 0.6, live: 0.6 },
];
/** A family the live policy had already lost 30 points of. */
const LOST = { family: 'sums', n: 34, base: 0.8, live: 0.5 };

const SUMS_REASON =
  'held back by the competence gate: 50.0 % on the 34 held-out sums prompts, 30.0 points below the base model (80.0 %) ' +
  'and 20.0 below the live policy; the family margin is 15.0 points';

interface Case {
  name: string;
  measure: GateMeasure;
  reference: GateReference;
  config?: Partial<GateSettings>;
  want: Verdict;
}

const m = (accuracy: number, n = 100, families: FamilyScore[] | null = null): GateMeasure => ({ accuracy, n, families });

const CASES: Case[] = [
  // The overall margin.
  { name: 'a drop of exactly the margin passes', measure: m(0.72), reference: REF, want: LIVE },
  { name: 'a rise passes', measure: m(0.9), reference: REF, want: LIVE },
  {
    name: 'a drop past the margin is held back, with the figures in the reason',
    measure: m(0.71),
    reference: REF,
    want: held(
      'held back by the competence gate: 71.0 % on 100 held-out prompts, 4.0 points below the best live policy (75.0 %, step-000002); the margin is 3.0 points',
    ),
  },
  {
    name: "the base model's reference is named as such; a margin of 0 passes nothing lower",
    measure: m(0.5, 10),
    reference: { accuracy: 0.6, source: 'base' },
    config: { competence_margin: 0 },
    want: held(
      'held back by the competence gate: 50.0 % on 10 held-out prompts, 10.0 points below the best live policy (60.0 %, the base model); the margin is 0.0 points',
    ),
  },
  { name: 'a margin of 1 lets everything through', measure: m(0), reference: REF, config: { competence_margin: 1 }, want: LIVE },
  // An unconfirmed rise of the reference.
  {
    name: 'held back against the rise, not against its floor: confirm the rise first',
    measure: m(0.86, 96),
    reference: RISEN,
    want: CONFIRM,
  },
  { name: 'within the margin of both: live without confirming', measure: m(0.88, 96), reference: RISEN, want: LIVE },
  {
    name: 'held back against both: held back without confirming',
    measure: m(0.8, 96),
    reference: RISEN,
    want: held(
      'held back by the competence gate: 80.0 % on 96 held-out prompts, 10.0 points below the best live policy (90.0 %, step-000002); the margin is 3.0 points',
    ),
  },
  {
    name: 'a confirmed reference (no floor) is decided on as it is',
    measure: m(0.86, 96),
    reference: { accuracy: 0.9, source: 'base' },
    want: held(
      'held back by the competence gate: 86.0 % on 96 held-out prompts, 4.0 points below the best live policy (90.0 %, the base model); the margin is 3.0 points',
    ),
  },
  // Task families, once the overall margin passes.
  {
    name: 'one family past the family margin: held back, naming the one that fell furthest',
    measure: m(0.75, 77, FAMILIES),
    reference: REF,
    want: held(SUMS_REASON),
  },
  {
    name: "a family's drop of exactly the family margin passes",
    measure: m(0.75, 77, FAMILIES),
    reference: REF,
    config: { competence_family_margin: 0.3 },
    want: LIVE,
  },
  {
    name: 'families unchecked (null margin) are not held to anything',
    measure: m(0.75, 77, FAMILIES),
    reference: REF,
    config: { competence_family_margin: null },
    want: LIVE,
  },
  { name: 'families not scored (a set without families) are not held to anything', measure: m(0.75, 77, null), reference: REF, want: LIVE },
  {
    name: 'a family that gained is never held back',
    measure: m(0.75, 19, FAMILIES.slice(2)),
    reference: REF,
    config: { competence_family_margin: 0 },
    want: LIVE,
  },
  {
    name: 'the overall margin comes first: its reason, not a family’s',
    measure: m(0.5, 77, FAMILIES),
    reference: REF,
    want: held(
      'held back by the competence gate: 50.0 % on 77 held-out prompts, 25.0 points below the best live policy (75.0 %, step-000002); the margin is 3.0 points',
    ),
  },
  {
    name: 'families that fell as far: the first in name order is named',
    measure: m(0.75, 68, [FAMILIES[1], { ...FAMILIES[1], family: 'arith' }]),
    reference: REF,
    config: { competence_family_margin: 0.1 },
    want: held(SUMS_REASON.replace('sums', 'arith').replace('15.0 points', '10.0 points')),
  },
  // A family the live policy had already lost: training may win it back.
  { name: 'already lost, no worse: live', measure: m(0.75, 34, [{ ...LOST, accuracy: 0.5 }]), reference: REF, want: LIVE },
  { name: 'already lost, some won back: live', measure: m(0.75, 34, [{ ...LOST, accuracy: 0.6 }]), reference: REF, want: LIVE },
  {
    name: 'already lost and falling further: held back',
    measure: m(0.75, 34, [{ ...LOST, accuracy: 0.45 }]),
    reference: REF,
    want: held(
      'held back by the competence gate: 45.0 % on the 34 held-out sums prompts, 35.0 points below the base model (80.0 %) and 5.0 below the live policy; the family margin is 15.0 points',
    ),
  },
];

describe('competence gate: decide(measure, reference, config)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(decide(c.measure, c.reference, { ...SHIPPED, ...c.config }), c.want);
    });
  }
});
