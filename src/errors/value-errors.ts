/**
 * Why a value was refused, as a fragment that follows the name of what carried it ("timeout must be
 * ..."): the config's readers and the CLI's flag parser put the name in front and report it in their
 * own error, so these are plain Errors with the fragment as their message.
 */
const rejected = (rule: string) => new Error(rule);

export const notBoolean = () => rejected("must be true or false");
export const zeroTimeout = () =>
  rejected('must be more than 0 (such as "30s"); 0 would fail every call at once');
export const notPositiveInteger = () => rejected("must be a positive integer");
export const notNegotiation = () =>
  rejected('must be "legacy", "auto" or a protocol version like "2026-07-28"');
export const noToolPlaceholder = () => rejected('must be a string containing "{tool}"');
export const notDescriptionPrefix = () => rejected("must be a string (empty or false turns it off)");
export const notOverflowMode = () => rejected('must be "truncate" or "file"');
export const notFolderPath = () => rejected("must be a folder path");
export const notDriftAction = () => rejected('must be "warn", "block" or "ask"');
export const notImportList = (sources: readonly string[]) =>
  rejected(`must be a list of ${sources.join(", ")}`);
export const notRegistryList = () => rejected("must be an http(s) registry address or a list of them");
export const negativeDuration = (value: number) => rejected(`must be a non-negative duration, got ${value}`);
export const durationNotText = (value: unknown) =>
  rejected(`must be a duration such as "30s", got ${typeof value}`);
export const notDuration = (value: string) =>
  rejected(`must be a duration such as "500ms", "30s", "2m" or "1h", got "${value}"`);
