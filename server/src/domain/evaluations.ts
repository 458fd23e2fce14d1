// Evaluations service: the wire evaluation with its user and live challenge status; consume once; search.
import type { Evaluation } from "@tessera/sdk/contract";
import { perIpKey } from "../geo/ip.js";
import type { ChallengeSummaryLookup } from "../pipeline/ports.js";
import type { EvaluationFilters } from "../store/evaluation-search.js";
import type { EvaluationRow } from "../store/evaluations.js";
import type { Repos } from "../store/repos.js";
import { toWireEvaluation, toWireEvaluations } from "../wire/evaluations.js";

export class EvaluationsService {
  constructor(
    private readonly repos: Repos,
    /** The live status of an evaluation's challenge (the challenges service). */
    private readonly challengeSummary: ChallengeSummaryLookup,
  ) {}

  async toWire(row: EvaluationRow): Promise<Evaluation> {
    const user = row.user_id ? await this.repos.users.findById(row.user_id) : undefined;
    const challenge = row.challenge_id ? await this.challengeSummary(row.challenge_id) : undefined;
    return toWireEvaluation(row, user, challenge);
  }

  /**
   * The evaluations matching the filters, newest first (GET /v3/evaluations): `user` (the customer's id) and `email`
   * narrow to the users they name, both to those named by both.
   */
  async search(f: Omit<EvaluationFilters, "userIds" | "ip"> & { ip?: string; user?: string; email?: string }): Promise<EvaluationRow[]> {
    const { user, email, ip, ...filters } = f;
    const search = this.repos.evaluationSearch;
    let userIds: string[] | undefined;
    if (user) userIds = await search.userIdsByExternal(f.environmentId, user);
    if (email) {
      const byEmail = await search.userIdsByEmail(f.environmentId, email);
      userIds = userIds ? userIds.filter((id) => byEmail.includes(id)) : byEmail;
    }
    return search.search({ ...filters, userIds, ip: ip ? { address: ip, key: perIpKey(ip) } : undefined });
  }

  /** A page of search results as wire evaluations, their users and challenges read in two queries for the page. */
  async toWirePage(rows: EvaluationRow[]): Promise<Evaluation[]> {
    return toWireEvaluations(rows, await this.repos.evaluationSearch.related(rows));
  }

  async get(environmentId: string, id: string): Promise<Evaluation | undefined> {
    const row = await this.repos.evaluations.find(environmentId, id);
    return row && this.toWire(row);
  }

  async consume(
    environmentId: string,
    id: string,
  ): Promise<{ ok: true; evaluation: Evaluation } | { ok: false; reason: "not_found" | "already_consumed" }> {
    const res = await this.repos.evaluations.consume(environmentId, id);
    if (!res.ok) return res;
    // The backend acted on the evaluation (the password was right): its provisional user is an account (docs/identity.md).
    if (res.row.user_id) await this.repos.users.confirm(res.row.user_id);
    return { ok: true, evaluation: await this.toWire(res.row) };
  }
}
