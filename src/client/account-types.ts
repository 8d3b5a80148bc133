/** One balance top-up (spec, Payment). */
export interface Payment {
  readonly id: number;
  readonly amount: number;
  readonly currency: string;
  /** `pending`, `paid`, `disputed`, `cancelled`, `failed`, `expired`. */
  readonly status: string;
  readonly provider: string;
  readonly created_at: string;
}

/** A page of payments, newest first (spec, Payment collection). */
export interface PaymentPage {
  readonly data: readonly Payment[];
  readonly meta: {
    readonly current_page: number;
    readonly last_page: number;
    readonly per_page: number;
    readonly total: number;
    readonly from: number | null;
    readonly to: number | null;
  };
  readonly links: Readonly<Record<string, string | null>>;
}

/** The calling key (GET /api/v2/key); `preview` is masked, the secret is never returned. */
export interface ApiKeyInfo {
  readonly id: number;
  readonly name: string;
  readonly preview: string;
  readonly role: string;
  readonly status: string;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly ip_whitelist: readonly string[];
  readonly limit: number | null;
  readonly reset_interval: string | null;
  readonly limit_used: number | null;
  readonly limit_remaining: number | null;
  readonly limit_resets_at: string | null;
  readonly [field: string]: unknown;
}
