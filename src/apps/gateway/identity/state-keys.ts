import {
  stateKeysFileEmpty,
  stateKeysFileInvalid,
  stateKeysFileRefused,
} from "../../../errors/gateway-errors.js";
import { readSecretFile } from "../../../util/private-file.js";
import { KEY_ID_PATTERN, STATE_KEY_BYTES, type StateKey, type StateKeys } from "./sealed-state.js";

/**
 * Reads the keys every gateway replica seals and opens `requestState` tokens with (see
 * sealed-state.ts): one `KID:BASE64KEY` per line, `#` comments and blank lines skipped. The first key
 * seals, every key opens: rotation adds the new key as a second line on every replica, then moves it
 * first, then removes the old one once its tokens have expired. The file must be this user's and
 * readable by nobody else.
 */
export function readStateKeys(file: string): StateKeys {
  const read = readSecretFile(file);
  if (!read.ok) throw stateKeysFileRefused({ file, problem: read.problem });
  return parseStateKeys(file, read.text);
}

export function parseStateKeys(file: string, text: string): StateKeys {
  const keys: StateKey[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const invalid = (detail: string) => stateKeysFileInvalid({ file, line: index + 1, detail });
    const colon = line.indexOf(":");
    if (colon < 0) throw invalid("no ':' between the key id and the key");
    const kid = line.slice(0, colon).trim();
    const encoded = line.slice(colon + 1).trim();
    if (!KEY_ID_PATTERN.test(kid)) throw invalid("the key id is empty, too long or has other characters");
    const key = Buffer.from(encoded, "base64");
    if (
      key.length !== STATE_KEY_BYTES ||
      key.toString("base64").replace(/=+$/, "") !== encoded.replace(/=+$/, "")
    ) {
      throw invalid(`the key is not ${STATE_KEY_BYTES} bytes of base64`);
    }
    if (keys.some((k) => k.kid === kid)) throw invalid("the key id is already used by an earlier line");
    keys.push({ kid, key });
  }
  const [sealing] = keys;
  if (!sealing) throw stateKeysFileEmpty({ file });
  return { sealing, opening: new Map(keys.map((k) => [k.kid, k.key])) };
}
