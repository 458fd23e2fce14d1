// The evaluation's one statement of numbers, shared by the providers that ask a part of it (velocity, login attempts,
// the signed-in browser, the familiarity ledger's questions): each asks while the providers start, and loadFacts sends
// the statement once all have (store/history.ts, HistoryRepo.scalars: one round trip, as before the providers existed).
import type { Familiar, FamiliarQuestion } from "../store/familiarity.js";
import type { ScalarAnswers, ScalarParts } from "../store/history.js";
import type { Repos } from "../store/repos.js";

type Single = Exclude<keyof ScalarParts, "familiar">;

interface Waiting<T> {
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export class ScalarsBatch {
  private readonly parts: ScalarParts = {};
  private readonly waiting: { [K in Single]?: Waiting<NonNullable<ScalarAnswers[K]>> } = {};
  private familiarUser: string | undefined;
  private readonly questions: FamiliarQuestion[] = [];
  private readonly answers: Array<Waiting<Familiar>> = [];
  private sent = false;

  constructor(
    private readonly repos: Repos,
    private readonly environmentId: string,
  ) {}

  /** Asks one part (velocity, browser, attempts): once per evaluation. */
  ask<K extends Single>(kind: K, part: NonNullable<ScalarParts[K]>): Promise<NonNullable<ScalarAnswers[K]>> {
    if (this.sent) throw new Error(`The history statement was sent before ${kind} was asked`);
    if (this.parts[kind]) throw new Error(`${kind} asked twice of one history statement`);
    this.parts[kind] = part as never;
    return new Promise((resolve, reject) => {
      this.waiting[kind] = { resolve, reject } as never;
    });
  }

  /** Asks one question of the user's familiarity ledger. */
  familiar(userId: string, question: FamiliarQuestion): Promise<Familiar> {
    if (this.sent) throw new Error("The history statement was sent before a familiarity question was asked");
    if (this.familiarUser !== undefined && this.familiarUser !== userId) throw new Error("Familiarity asked of two users at once");
    this.familiarUser = userId;
    this.questions.push(question);
    return new Promise((resolve, reject) => this.answers.push({ resolve, reject }));
  }

  /** Sends the statement with every part asked (nothing when none was); each asker is answered. */
  async send(): Promise<void> {
    this.sent = true;
    if (this.familiarUser !== undefined) this.parts.familiar = { userId: this.familiarUser, questions: this.questions };
    const waiting = Object.entries(this.waiting) as Array<[Single, Waiting<unknown>]>;
    if (waiting.length === 0 && this.questions.length === 0) return;
    try {
      const answers = await this.repos.history.scalars(this.environmentId, this.parts);
      for (const [kind, w] of waiting) w.resolve(answers[kind]);
      for (const [i, w] of this.answers.entries()) w.resolve((answers.familiar ?? [])[i] as Familiar);
    } catch (e) {
      for (const [, w] of waiting) w.reject(e);
      for (const w of this.answers) w.reject(e);
    }
  }
}
