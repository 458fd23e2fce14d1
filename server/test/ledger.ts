// The familiarity ledger (store/familiarity.ts) asked as the familiarity checks ask it (checks/families/familiarity.ts),
// for the tests of the migrations whose columns migration 30 copied into it.
import type { Kysely } from "kysely";
import type { Store } from "../src/store/db.js";
import { HistoryRepo } from "../src/store/history.js";
import * as m30 from "../src/store/migrations/30-familiarity.js";
import { Transactions } from "../src/store/transactions.js";
import { UserLists } from "../src/store/user-lists.js";

export function ledgerOf(store: Store) {
  const transactions = new Transactions(store.db);
  const history = new HistoryRepo(transactions, store.dialect, new UserLists(transactions, store.dialect));
  const ask = async (env: string, user: string, pairs: Array<[string, string]>) => {
    const answer = (await history.scalars(env, { familiar: { userId: user, questions: [{ pairs }] } })).familiar?.[0];
    if (!answer) throw new Error("The ledger answered nothing");
    return answer;
  };
  return {
    /** As is_new_country asks: this country seen (on an ordinary network), and any country at all. */
    country: (env: string, user: string, country: string) => ask(env, user, [["country", country]]),
    /** As is_new_provider asks: this ASN, as an exit's or as a network's own. */
    provider: async (env: string, user: string, asn: number) =>
      (
        await ask(env, user, [
          ["provider_asn", String(asn)],
          ["network_asn", String(asn)],
        ])
      ).seen,
    /** The ledger rebuilt from the evaluations' columns as they are now: migration 30 run again. */
    async rebuild(): Promise<void> {
      await m30.down(store.db as unknown as Kysely<unknown>);
      await m30.up(store.db as unknown as Kysely<unknown>);
    },
  };
}
