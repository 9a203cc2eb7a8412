// A small frontend's client, type-checked with `tsc --strict` against the types that
// openapi-typescript generates from openapi/openapi.json (into generated/, not committed).
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema";

type View = components["schemas"]["TableView"];
type Event = components["schemas"]["Event"];
type Status = components["schemas"]["Status"];

export function tableClient(baseUrl: string, token?: string) {
  return createClient<paths>({ baseUrl, headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

// Create a table: the create answer always has the invite (no assertion needed).
export async function createTable(baseUrl: string, name: string): Promise<{ tableId: string; token: string; invite: string }> {
  const { data, error } = await tableClient(baseUrl).POST("/v1/tables", { body: { name, target_score: 25 } });
  if (error) throw new Error(`cannot create: ${error.code}`);
  const invite: string = data.invite_url;
  return { tableId: data.table_id, token: data.token, invite };
}

// Join: a player has a seat, a spectator none.
export async function join(baseUrl: string, inviteCode: string, name: string): Promise<number | null> {
  const { data, error } = await tableClient(baseUrl).POST("/v1/invites/{invite_code}/join", {
    params: { path: { invite_code: inviteCode } },
    body: { name },
  });
  if (error) throw new Error(error.code);
  return data.role === "player" ? data.seat : null;
}

// What to tell the player when a card is refused: the codes playCard can answer are an enum.
export async function playCard(baseUrl: string, token: string, tableId: string, card: string): Promise<View | string> {
  const { data, error } = await tableClient(baseUrl, token).POST("/v1/tables/{table_id}/plays", {
    params: { path: { table_id: tableId }, header: { "Idempotency-Key": `${tableId}-${card}` } },
    body: { card },
  });
  if (error) {
    switch (error.code) {
      case "not_your_turn":
        return "wait for your turn";
      case "must_follow_suit":
        return "follow the suit that was led";
      case "hearts_not_broken":
        return "hearts are not broken yet";
      case "stale_version":
        return "the table moved on: look again";
      default:
        return error.detail;
    }
  }
  return data;
}

export function isMyTurn(view: View): boolean {
  const playing: Status = "playing";
  return view.status === playing && view.turn !== null && view.turn === view.you.seat;
}

// Events are told apart by `type`, and each type's `data` is typed.
export function describe(event: Event): string {
  switch (event.type) {
    case "card_played":
      return `seat ${event.seat} played ${event.data.card}`;
    case "pass_chosen":
      return event.data.cards === null ? `seat ${event.seat} passed` : `seat ${event.seat} passed ${event.data.cards.join(" ")}`;
    case "round_dealt":
      return `round ${event.data.round} dealt (${event.data.commitment})`;
    default:
      return event.type;
  }
}

export async function history(baseUrl: string, token: string, tableId: string): Promise<string[]> {
  const { data, error } = await tableClient(baseUrl, token).GET("/v1/tables/{table_id}/events", {
    params: { path: { table_id: tableId }, query: { after: 0, limit: 500 } },
  });
  if (error) throw new Error(error.code);
  return data.events.map(describe);
}

// @ts-expect-error: a code that no operation answers is not a code
export const bogus: components["schemas"]["Problem"]["code"] & ("not_your_turn" | "must_follow_suit") = "no_such_code";
