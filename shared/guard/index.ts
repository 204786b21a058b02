/**
 * The guard library: every request webgate makes to a caller-supplied URL goes through it.
 * See the README's "Security model" section for what is refused and why.
 */
export { bareHostname, checkUrl } from "./url-policy";
export { classifyAddress, ADDRESS_REFUSALS, ADDRESS_REFUSAL_DESCRIPTIONS } from "./address-policy";
export type { AddressClass, AddressRefusal } from "./address-policy";
export { isCheckedAddresses, resolveChecked, systemResolver } from "./guarded-lookup";
export type { CheckedAddresses, ResolveCheckedDeps } from "./guarded-lookup";
export { createDnsResolver } from "./dns-resolver";
export type { CnameAwareResolver, DnsAnswer, Resolver } from "./dns-resolver";
export { DEFAULT_GUARD_POLICY, resolvePolicy } from "./policy";
export type { GuardPolicy } from "./policy";
export { createGuardedClient, DEFAULT_GUARD_LIMITS, ORIGIN_REQUEST_HEADERS, WEBGATE_USER_AGENT } from "./guarded-get";
export type { GuardLimits, GuardedClient, GuardedClientDeps, GuardedGetOptions, GuardedResponse, RedirectHop } from "./guarded-get";
