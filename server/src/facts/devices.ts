// Fact: the user's devices (docs/detection.md, "Account sharing"), most recently seen first, each with whether the user
// signed in on it: what the account-sharing checks count and place. On PostgreSQL read together with the accounts'
// lists (store/user-lists.ts).
import { defineFacts } from "./define.js";

export const userDevices = defineFacts({
  name: "devices",
  load: async ({ input, identity, repos }) => (identity.user ? repos.history.userDevices(input.env.id, identity.user.id) : []),
});
