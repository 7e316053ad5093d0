/**
 * The SDK against a live server (started by tests/contract/test_sdk.py, which gives its address in
 * MAUMAU_BASE_URL and a control address in MAUMAU_CONTROL_URL: `POST /restart` restarts the server on
 * the same port, its database kept). Run with `node --test` after `tsc -p tsconfig.test.json`.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { createMauMau, type Action, type GameFrame, type GameView, type MauMau, type MeFrame, unwrap, VersionConflictError } from "../src/index.js";

const BASE = process.env.MAUMAU_BASE_URL ?? "";
const CONTROL = process.env.MAUMAU_CONTROL_URL ?? "";
const PROXY_PORT = Number(process.env.MAUMAU_PROXY_PORT ?? "0");

const tokens = new WeakMap<MauMau, string>();

async function guest(name: string): Promise<MauMau> {
  const anonymous = createMauMau({ baseUrl: BASE });
  const created = await unwrap(anonymous.api.POST("/api/v1/players", { body: { name } }));
  const sdk = createMauMau({ baseUrl: BASE, token: created.token, retry: { baseDelayMs: 50 } });
  tokens.set(sdk, created.token);
  return sdk;
}

/** A table of `rules` with the guest and a bot, and its first round dealt. */
async function roundWithABot(sdk: MauMau, rules: "classic" | "tavern" | "house"): Promise<GameView> {
  const table = await unwrap(sdk.api.POST("/api/v1/tables", { body: { rules } }));
  await unwrap(sdk.api.POST("/api/v1/tables/{table_id}/bots", { params: { path: { table_id: table.id } }, body: {} }));
  return unwrap(sdk.api.POST("/api/v1/tables/{table_id}/rounds", { params: { path: { table_id: table.id } }, body: {} }));
}

/** The view once the guest may move (the bot moves in the background), or once the round is over. */
async function myTurn(sdk: MauMau, view: GameView): Promise<GameView> {
  while (view.status === "active" && view.legal_actions.length === 0) {
    const { data, response } = await sdk.api.GET("/api/v1/games/{game_id}", {
      params: { path: { game_id: view.id }, query: { wait: 5, after: view.version } },
    });
    view = response.status === 200 && data !== undefined
      ? data
      : await unwrap(sdk.api.GET("/api/v1/games/{game_id}", { params: { path: { game_id: view.id } } }));
  }
  return view;
}

/** A seeded choice, so a failing round can be replayed. */
function chooser(seed: number): (actions: Action[]) => Action {
  let state = seed;
  return (actions) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const plays = actions.filter((action) => action.type === "play");
    const from = plays.length > 0 && state % 10 !== 0 ? plays : actions;
    return from[state % from.length];
  };
}

async function playOneMove(sdk: MauMau, view: GameView, choose: (actions: Action[]) => Action): Promise<GameView> {
  view = await myTurn(sdk, view);
  if (view.status !== "active") return view;
  try {
    return (await sdk.move(view.id, choose(view.legal_actions), { expectedVersion: view.version })).view;
  } catch (error) {
    // The bot moved meanwhile (the clock or a restart in between): look again, as a client should.
    if (!(error instanceof VersionConflictError)) throw error;
    return unwrap(sdk.api.GET("/api/v1/games/{game_id}", { params: { path: { game_id: view.id } } }));
  }
}

describe("the SDK on a live server", () => {
  for (const rules of ["classic", "tavern", "house"] as const) {
    it(`plays a round of ${rules} to its end`, async () => {
      const sdk = await guest(`SDK ${rules}`);
      let view = await roundWithABot(sdk, rules);
      const choose = chooser(rules.length);
      for (let moves = 0; view.status === "active" && moves < 2000; moves++) view = await playOneMove(sdk, view, choose);
      assert.equal(view.status, "finished");
      assert.ok(view.result !== null);
      const ledger = await unwrap(sdk.api.GET("/api/v1/games/{game_id}/events", {
        params: { path: { game_id: view.id }, query: { after: 0 } },
      }));
      assert.ok(ledger.moves.length > 0);
    });
  }

  it("raises a VersionConflictError for a move on a version that has passed", async () => {
    const sdk = await guest("SDK conflict");
    const view = await myTurn(sdk, await roundWithABot(sdk, "classic"));
    const stale = view.version + 1;
    await assert.rejects(sdk.move(view.id, view.legal_actions[0], { expectedVersion: stale }), (error: unknown) => {
      assert.ok(error instanceof VersionConflictError, String(error));
      assert.equal(error.status, 409);
      assert.equal(error.currentVersion, view.version);
      return true;
    });
  });
});

describe("a move whose answer is lost", () => {
  let proxy: net.Server;
  let cutNext = false;
  let cuts = 0;

  before(async () => {
    const target = new URL(BASE);
    proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      let cutting = false;
      client.on("data", (chunk) => {
        if (cutNext && /^POST \/api\/v1\/games\/\d+\/actions /.test(chunk.toString("latin1"))) {
          cutNext = false;
          cutting = true;
        }
        upstream.write(chunk);
      });
      upstream.on("data", (chunk) => {
        if (cutting) {
          cuts += 1; // the server has answered: the move is applied, and the answer never arrives
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(chunk);
      });
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(PROXY_PORT, "127.0.0.1", resolve));
  });

  after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it("is retried with the same Idempotency-Key and applied once", async () => {
    const address = proxy.address() as net.AddressInfo;
    const direct = await guest("SDK cut");
    let view = await myTurn(direct, await roundWithABot(direct, "classic"));
    const sent: string[] = [];
    const sdk = createMauMau({
      baseUrl: `http://127.0.0.1:${address.port}`,
      token: tokens.get(direct),
      retry: { baseDelayMs: 50 },
      fetch: (request) => {
        const key = request.headers.get("Idempotency-Key");
        if (key !== null) sent.push(key);
        return fetch(request);
      },
    });
    const before = await unwrap(direct.api.GET("/api/v1/games/{game_id}/events", {
      params: { path: { game_id: view.id }, query: { after: 0 } },
    }));
    cutNext = true;
    const moved = await sdk.move(view.id, view.legal_actions[0], { expectedVersion: view.version });
    assert.equal(cuts, 1);
    assert.equal(sent.length, 2, "one request, one retry");
    assert.equal(sent[0], sent[1]);
    assert.equal(moved.replayed, true);
    const afterwards = await unwrap(direct.api.GET("/api/v1/games/{game_id}/events", {
      params: { path: { game_id: view.id }, query: { after: before.version } },
    }));
    const mine = afterwards.moves.filter((move) => move.actor === "player");
    assert.equal(mine.length, 1, "the move is in the ledger once");
    assert.equal(mine[0].seq, before.version + 1);
    view = moved.view;
    assert.ok(view.version >= before.version + 1);
  });
});

/**
 * The frames `open` gives while the guest plays the round to its end (`midway` runs after three moves);
 * reading stops at the stream's end or at the first frame `last` accepts.
 */
async function playWhileReading<F>(sdk: MauMau, view: GameView, choose: (actions: Action[]) => Action,
                                   open: (signal: AbortSignal) => AsyncGenerator<F>,
                                   last: (frame: F) => boolean = () => false,
                                   midway?: () => Promise<void>): Promise<F[]> {
  const frames: F[] = [];
  const stop = new AbortController();
  const reading = (async () => {
    for await (const frame of open(stop.signal)) {
      frames.push(frame);
      if (last(frame)) return;
    }
  })();
  try {
    for (let moves = 0; view.status === "active" && moves < 2000; moves++) {
      if (moves === 3 && midway !== undefined) await midway();
      view = await playOneMove(sdk, view, choose);
    }
    await reading;
  } finally {
    stop.abort();
  }
  return frames;
}

/** The seqs of the round's whole ledger. */
async function ledgerSeqs(sdk: MauMau, gameId: number): Promise<number[]> {
  const ledger = await unwrap(sdk.api.GET("/api/v1/games/{game_id}/events", {
    params: { path: { game_id: gameId }, query: { after: 0 } },
  }));
  return ledger.moves.map((move) => move.seq);
}

const movesOf = (frames: GameFrame[]) => frames.flatMap((frame) => (frame.event === "move" ? [frame.id] : []));

describe("the game stream", () => {
  it("survives a server restart and resumes without a lost or repeated event", async () => {
    const sdk = await guest("SDK stream");
    const view = await roundWithABot(sdk, "house");
    const connects: Array<number | undefined> = [];
    const frames = await playWhileReading(sdk, view, chooser(7), (signal) => sdk.gameStream(view.id, {
      lastEventId: 0, signal, maxReconnectDelayMs: 1000, onConnect: (last) => connects.push(last),
    }), undefined, async () => {
      const restarted = await fetch(`${CONTROL}/restart`, { method: "POST" });
      assert.equal(restarted.status, 204);
    });
    assert.deepEqual(movesOf(frames), await ledgerSeqs(sdk, view.id), "every ledger row once, in order");
    assert.equal(frames[frames.length - 1].event, "end");
    assert.ok(connects.length >= 2, `reconnected after the restart: ${JSON.stringify(connects)}`);
    assert.ok(connects.slice(1).every((last) => last !== undefined && last > 0), "resumed with Last-Event-ID");
  });

  it("falls back to long-poll with the same frames", async () => {
    const sdk = await guest("SDK long-poll");
    const view = await roundWithABot(sdk, "classic");
    const frames = await playWhileReading(sdk, view, chooser(3),
      (signal) => sdk.gameStream(view.id, { lastEventId: 0, mode: "long-poll", signal }));
    assert.deepEqual(movesOf(frames), await ledgerSeqs(sdk, view.id));
    assert.equal(frames[frames.length - 1].event, "end");
  });
});

describe("the notifications stream", () => {
  it("falls back to long-poll with the frames and ids of /me/stream", async () => {
    const sdk = await guest("SDK inbox");
    const view = await roundWithABot(sdk, "tavern");
    const frames: MeFrame[] = await playWhileReading(sdk, view, chooser(5),
      (signal) => sdk.meStream({ lastEventId: 0, mode: "long-poll", signal }),
      (frame) => frame.event === "round_over");
    const ids = frames.flatMap((frame) => (frame.event === "end" ? [] : [frame.id]));
    const page = await unwrap(sdk.api.GET("/api/v1/me/inbox", { params: { query: { after: 0 } } }));
    const upTo = page.notifications.filter((note) => note.id <= ids[ids.length - 1]);
    assert.deepEqual(ids, upTo.map((note) => note.id), "every notification once, in order");
    assert.ok(frames.every((frame) => frame.event === "end" || frame.event === frame.data.kind));
    assert.ok(frames.some((frame) => frame.event === "your_turn"));
  });
});
