// Fact: fingerprint churn (docs/detection.md, "Account-independent login rules and fingerprint churn"): never-seen
// identifying fingerprints first presented from this IP, its /24 (/48) and its cloud, VPN or proxy provider's ASN
// within the hour and the day, this one included (store/detection.ts counts them). Client evaluations only.
import { perIpKey } from "../geo/ip.js";
import { providerAsn } from "../signals/network.js";
import { defineFacts } from "./define.js";

/** An anti-detect browser's run lasts minutes to hours or, low and slow, under any hourly limit, a day. */
export const CHURN_WINDOWS = { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 };

export const churn = defineFacts({
  name: "churn",
  load: async ({ input, identity, signals, repos }) => {
    if (input.source !== "client" || !input.ip)
      return { hour: { ip: 0, network: 0, provider: 0 }, day: { ip: 0, network: 0, provider: 0 } };
    const fingerprint = identity.fingerprint;
    return repos.detection.fingerprintChurn(
      input.env.id,
      { ip: perIpKey(input.ip), network: signals.network?.prefix, provider: providerAsn(signals.geolocation) },
      !!fingerprint?.isNew && fingerprint.identifying,
      input.at,
      CHURN_WINDOWS,
    );
  },
});
