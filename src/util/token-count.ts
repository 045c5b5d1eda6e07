import { lazyPeer } from "./lazy-import.js";

/**
 * Token counting with a real tokenizer (o200k_base, the encoding of current OpenAI models; a close
 * estimate for other vendors' models too), loaded on first use: it costs ~150 ms and ~10 MB, which
 * hosts that never limit by tokens should not pay. `gpt-tokenizer` (30 MB installed) is an optional
 * peer dependency: without it, a token limit fails with MODULE_LOAD_FAILED saying what to install.
 */
export interface Tokenizer {
  count(text: string): number;
  /** The longest prefix of `text` of at most `maxTokens` tokens. */
  prefix(text: string, maxTokens: number): string;
}

export const loadTokenizer: () => Promise<Tokenizer> = lazyPeer(
  "counting tokens",
  "gpt-tokenizer",
  async () => {
    const module = await import("gpt-tokenizer/encoding/o200k_base");
    return {
      count: (text: string) => module.countTokens(text),
      prefix: (text: string, maxTokens: number) => {
        // A token is rarely longer than a few dozen characters: encode only what can matter.
        const tokens = module.encode(text.slice(0, Math.max(0, maxTokens) * 32));
        return tokens.length <= maxTokens ? text : module.decode(tokens.slice(0, Math.max(0, maxTokens)));
      },
    };
  },
);
