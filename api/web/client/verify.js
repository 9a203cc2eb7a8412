// Checking a deal in the browser, as README "Verifying a deal yourself" does
// in Python: SHA-256 of {"hands":[...],"salt":"..."} (sorted keys, no spaces,
// hands sorted C D H S then 2..A), compared with the published commitment.

import { request } from "./api.js";
import { sortCards } from "./cards.js";

export const canVerify = () => Boolean(globalThis.crypto && crypto.subtle && crypto.subtle.digest);

/** The commitment of the hands (lists of cards) and a 64-hex-digit salt. */
export async function dealCommitment(hands, salt) {
  // JSON.stringify writes no spaces; "hands" < "salt" is the sorted key order.
  const text = JSON.stringify({ hands: hands.map(sortCards), salt });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** True if a revealed round_dealt event keeps its commitment. */
export async function verifyDeal(data) {
  const cards = data.hands.flat();
  if (new Set(cards).size !== cards.length) return false; // a card dealt twice
  return (await dealCommitment(data.hands, data.salt)) === data.commitment;
}

/** Every revealed deal of a table: [{match, round, commitment, ok}], oldest first. */
export async function verifyTable(tableId, token) {
  const results = [];
  let after = 0;
  for (;;) {
    const { body } = await request("GET", `/tables/${tableId}/events?after=${after}&limit=500`, { token });
    for (const event of body.events) {
      const data = event.data || {};
      if (event.type === "round_dealt" && data.salt && !data.hands.includes(null)) {
        results.push({ match: data.match, round: data.round, commitment: data.commitment, ok: await verifyDeal(data) });
      }
    }
    if (body.next_after === after || body.events.length === 0) return results;
    after = body.next_after;
  }
}
