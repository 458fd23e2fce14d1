// Where a device was last seen, as a device list shows it: the city, region and country of its last IP address from
// the offline databases (nothing fetched), which tell apart two devices of one model and browser ("Chrome on Windows",
// twice) where nothing else does.
import type { Device, DevicePlace } from "@tessera/sdk/contract";
import { geo } from "./index.js";

export function placeOf(ip: string): DevicePlace | undefined {
  let found: ReturnType<ReturnType<typeof geo>["lookup"]>;
  try {
    found = geo().lookup(ip);
  } catch {
    return undefined;
  }
  const place: DevicePlace = {};
  if (found.city) place.city = found.city;
  if (found.region) place.region = found.region;
  if (found.country) place.country = found.country;
  if (found.country_code) place.country_code = found.country_code;
  return Object.keys(place).length ? place : undefined;
}

/** The device with the place of its last address, when the databases know it. */
export function withLastPlace(device: Device): Device {
  const place = device.last_ip ? placeOf(device.last_ip) : undefined;
  return place ? { ...device, last_location: place } : device;
}
