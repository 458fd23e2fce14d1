// Start of the risk engine, once per server: the offline geo data into memory, CONFIG_FILE policies, lists and webhooks.
import { initGeo } from "../geo/index.js";
import type { Services } from "../services.js";
import { loadConfigFile } from "./config-file.js";

export async function startRiskEngine(services: Services): Promise<void> {
  const { config } = services;
  initGeo({ cityDb: config.GEOIP_CITY_DB, asnDb: config.GEOIP_ASN_DB, torList: config.TOR_EXIT_LIST, networkList: config.NETWORK_LIST });
  if (config.CONFIG_FILE) await loadConfigFile(services, config.CONFIG_FILE);
}
