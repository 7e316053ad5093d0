// A small typed game loop on the types openapi-typescript makes of the schema (build/api.d.ts):
// the contract check compiles it with `tsc --noEmit --strict`. It plays whatever `legal_actions`
// lists, posted as it is, and switches on event types, error codes and stream frames.
import type { components, paths } from "./build/api";

type Schemas = components["schemas"];
type GameView = Schemas["GameView"];
type Action = Schemas["Action"];
type MoveResult = Schemas["MoveResult"];
type GameEvent = Schemas["Event"];
type ApiError = Schemas["ApiError"];
type ActionBody = paths["/api/v1/games/{game_id}/actions"]["post"]["requestBody"]["content"]["application/json"];
type Frame = Schemas["GameStreamFrame"];
type Note = Schemas["Notification"];

function describe(event: GameEvent): string {
  switch (event.type) {
    case "played":
      return `seat ${event.seat} laid ${event.cards.join(" ")}`;
    case "drew":
      return `seat ${event.seat} drew ${event.count}${event.reason ? ` (${event.reason})` : ""}`;
    case "wish":
      return `seat ${event.seat} wished ${event.suit}`;
    case "round_over":
      return `over: ${event.result.reason}, winner ${event.result.winner ?? "none"}`;
    case "turn":
    case "skipped":
    case "mau":
      return `${event.type} ${event.seat}`;
    default:
      return event.type;
  }
}

function choose(view: GameView): Action | undefined {
  const plays = view.legal_actions.filter((action) => action.type === "play");
  const choice: Action | undefined = plays[0] ?? view.legal_actions[0];
  if (choice && choice.type === "play" && choice.as_choices) {
    const names: Schemas["SuitedCard"][] = Object.values(choice.as_choices).flat();
    console.log(`a joker could also be ${names.join(", ")}`);
  }
  return choice;
}

function onFrame(frame: Frame): void {
  if ("event" in frame && frame.event === "move") console.log(frame.data.events.map(describe).join("; "));
  else if ("event" in frame && frame.event === "end") console.log(`round ${frame.data.game} ${frame.data.status}`);
}

function onNotification(note: Note): void {
  if (note.kind === "your_turn") console.log(`your turn in game ${note.data.game}`);
}

export async function play(base: string, token: string, gameId: number): Promise<GameView> {
  const headers = { Authorization: `Token ${token}`, "Content-Type": "application/json" };
  let view = (await (await fetch(`${base}/api/v1/games/${gameId}`, { headers })).json()) as GameView;
  while (view.status === "active") {
    const action = choose(view);
    if (action === undefined) break;
    const body: ActionBody = { ...action, expected_version: view.version };
    const answer = await fetch(`${base}/api/v1/games/${gameId}/actions`, {
      method: "POST", headers, body: JSON.stringify(body),
    });
    if (answer.ok) {
      const result = (await answer.json()) as MoveResult;
      result.events.forEach((event) => console.log(describe(event)));
      view = result;
      continue;
    }
    const error = (await answer.json()) as ApiError;
    if (error.error.code !== "version_conflict" && error.error.code !== "not_your_turn") throw new Error(error.error.message);
    view = (await (await fetch(`${base}/api/v1/games/${gameId}`, { headers })).json()) as GameView;
  }
  return view;
}

export { onFrame, onNotification };
