/**
 * Token buckets for `limit` rules: one per (policy, rule, caller), holding `perMinute` tokens and
 * refilled continuously at `perMinute` a minute, so a burst up to the limit passes and the rate over
 * any minute stays under it. A full bucket is the same as no bucket, so once many are kept the full
 * ones are forgotten: memory stays bounded by the callers that were limited recently.
 */
interface Bucket {
  tokens: number;
  at: number;
  readonly perMinute: number;
}

const KEEP = 10_000;

export class RateBuckets {
  readonly #buckets = new Map<string, Bucket>();

  /** Takes one token from the bucket `key`; false when it is empty. `now` in milliseconds. */
  take(key: string, perMinute: number, now: number): boolean {
    const bucket = this.#buckets.get(key);
    const tokens = bucket ? level(bucket, now) : perMinute;
    const taken = tokens >= 1;
    this.#buckets.set(key, { tokens: taken ? tokens - 1 : tokens, at: now, perMinute });
    if (this.#buckets.size > KEEP) {
      for (const [other, kept] of this.#buckets)
        if (level(kept, now) >= kept.perMinute) this.#buckets.delete(other);
    }
    return taken;
  }
}

function level(bucket: Bucket, now: number): number {
  const refill = (Math.max(0, now - bucket.at) * bucket.perMinute) / 60_000;
  return Math.min(bucket.perMinute, bucket.tokens + refill);
}
