// Start of the risk engine, once per server: the offline geo data into memory, CONFIG_FILE policies and lists, and
// the after-evaluation hook that moves a drifted fingerprint to its latest components.
import { initGeo } from "../geo/index.js";
import type { Services } from "../services.js";
import { loadConfigFile } from "./config-file.js";

export async function startRiskEngine(services: Services): Promise<void> {
  const { config, repos, pipeline } = services;
  initGeo({ cityDb: config.GEOIP_CITY_DB, asnDb: config.GEOIP_ASN_DB, torList: config.TOR_EXIT_LIST, networkList: config.NETWORK_LIST });
  if (config.CONFIG_FILE) await loadConfigFile(repos, config.CONFIG_FILE);
  pipeline.after.push(async (_result, _input, identity) => {
    const drift = identity.fingerprint?.drift;
    if (drift && identity.fingerprint) await repos.fingerprints.updateComponents(identity.fingerprint.row.id, drift);
  });
}
