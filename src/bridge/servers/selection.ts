import type { ServerDefinition } from "../../config/model.js";
import type { ResolvedBridgeOptions } from "../options.js";

/**
 * Whether the host asked for this server: by name (`only`) and by label (`tags`: any one of them);
 * the others stay configured but are never opened.
 */
export function isSelected(
  state: { readonly options: Pick<ResolvedBridgeOptions, "only" | "tags"> },
  definition: ServerDefinition,
): boolean {
  const { only, tags } = state.options;
  if (only !== undefined && !only.has(definition.name)) return false;
  return tags === undefined || (definition.tags ?? []).some((tag) => tags.has(tag));
}
