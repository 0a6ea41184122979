import type { Prepare } from './statementCache.js';

/** A judge's result for a turn: the PRM's score or the hint judge's hint, with every vote. */
export interface Judgement {
  kind: 'prm' | 'hint';
  judge: string;
  votes: Array<{ raw: string; score: number | null; hint?: string | null }>;
  score: number | null;
  hint: string | null;
  createdAt: number;
}

/** The `judgements` table (written by the trainer). */
export class JudgementTable {
  constructor(private readonly q: Prepare) {}

  ofTurn(turnId: string): Judgement[] {
    const rows = this.q('SELECT kind, judge, votes, score, hint, created_at FROM judgements WHERE turn_id = ? ORDER BY id').all(
      turnId,
    ) as Array<{
      kind: 'prm' | 'hint';
      judge: string;
      votes: string;
      score: number | null;
      hint: string | null;
      created_at: number;
    }>;
    return rows.map((r) => ({
      kind: r.kind,
      judge: r.judge,
      votes: JSON.parse(r.votes),
      score: r.score,
      hint: r.hint,
      createdAt: r.created_at,
    }));
  }

  insert(turnId: string, j: Omit<Judgement, 'createdAt'>, now: number): void {
    this.q('INSERT INTO judgements (turn_id, kind, judge, votes, score, hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      turnId,
      j.kind,
      j.judge,
      JSON.stringify(j.votes),
      j.score,
      j.hint,
      now,
    );
  }
}
