// Demo code for Baton's demo workspace: something to ask an agent about.

export interface Charge {
  checkoutId: string;
  amountCents: number;
}

/** Sends a charge, retrying with exponential backoff; the idempotency key lets the provider drop duplicates. */
export async function chargeCard(charge: Charge, send: (c: Charge, idempotencyKey: string) => Promise<void>, attempts = 4): Promise<void> {
  const key = `checkout-${charge.checkoutId}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(charge, key);
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}
