// Following a table live: the stream (Server-Sent Events) when the server
// offers it, long polls (?wait= with If-None-Match) otherwise or when the
// stream fails. EventSource cannot send a bearer token, so the stream is read
// with fetch and parsed here. A lost connection is reported and retried.

import { ApiError, BASE, NetworkError, request, sleep } from "./api.js";

const POLL_WAIT_SECONDS = 25;
const STREAM_TRIES_BEFORE_POLLING = 3;

export class Follower {
  /**
   * onView(view): a newer view arrived. onStatus(state, detail): "connecting",
   * "live" (stream), "polling" (long polls), "offline" ({retryIn}), "gone" (ApiError).
   */
  constructor({ tableId, token, stream, onView, onStatus }) {
    this.tableId = tableId;
    this.token = token;
    this.useStream = stream;
    this.onView = onView;
    this.onStatus = onStatus;
    this.version = -1;
    this.etag = null;
    this.failures = 0;
    this.streamFailures = 0;
    this.controller = null;
    this.stopped = false;
  }

  start() {
    this.onStatus("connecting");
    this.loop();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  /** A view the page got another way (a move's answer): later ones only. */
  saw(view) {
    if (view.version > this.version) this.version = view.version;
  }

  async loop() {
    while (!this.stopped) {
      this.controller = new AbortController();
      try {
        if (this.useStream && this.streamFailures < STREAM_TRIES_BEFORE_POLLING) {
          await this.readStream(this.controller.signal);
        } else {
          await this.poll(this.controller.signal);
        }
        this.failures = 0;
      } catch (error) {
        if (this.stopped || error.name === "AbortError") continue;
        if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
          this.onStatus("gone", error);
          return;
        }
        if (error instanceof StreamUnavailable) {
          this.streamFailures = STREAM_TRIES_BEFORE_POLLING; // this server or proxy does not stream: poll
          continue;
        }
        if (error instanceof StreamBroken) {
          this.streamFailures += 1;
          continue; // the next turn polls if the stream keeps failing; a poll tells whether the server is there
        }
        this.failures += 1;
        const retryIn = Math.min(5, 2 ** Math.min(this.failures - 1, 3)); // 1, 2, 4, 5, 5... seconds
        this.onStatus("offline", { retryIn, error });
        await sleep(retryIn * 1000);
        if (this.useStream && this.streamFailures >= STREAM_TRIES_BEFORE_POLLING) this.streamFailures = 0; // try the stream again
      }
    }
  }

  deliver(view) {
    if (view && view.version >= this.version) {
      this.version = view.version;
      this.onView(view);
    }
  }

  async poll(signal) {
    const headers = {};
    // After a failure, ask at once (no wait): the answer tells the page the server is back.
    const waiting = this.etag !== null && this.failures === 0;
    if (this.etag !== null) headers["If-None-Match"] = this.etag;
    const path = `/tables/${this.tableId}` + (waiting ? `?wait=${POLL_WAIT_SECONDS}` : "");
    const answer = await request("GET", path, { token: this.token, headers, signal });
    this.onStatus("polling");
    if (answer.etag) this.etag = answer.etag;
    if (answer.status === 200) this.deliver(answer.body);
  }

  async readStream(signal) {
    const headers = { Accept: "text/event-stream", Authorization: `Bearer ${this.token}` };
    if (this.version >= 0) headers["Last-Event-ID"] = String(this.version);
    let response;
    try {
      response = await fetch(`${BASE}/tables/${this.tableId}/stream`, { headers, signal, cache: "no-store" });
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new NetworkError(String(error));
    }
    if ([401, 403, 404].includes(response.status)) {
      let problem = {};
      try {
        problem = await response.json();
      } catch {
        /* a body that is not JSON: keep the status */
      }
      if (response.status === 404 && problem.code !== "not_found") throw new StreamUnavailable();
      throw new ApiError(response.status, problem);
    }
    const type = response.headers.get("Content-Type") || "";
    if (!response.ok || !type.startsWith("text/event-stream") || !response.body) {
      if (response.status >= 502) throw new NetworkError(`HTTP ${response.status}`);
      throw new StreamUnavailable();
    }
    this.onStatus("live");
    this.streamFailures = 0;
    this.failures = 0;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let message = { event: "message", data: [], id: null };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return; // the server ended the stream: reconnect with Last-Event-ID
        buffer += value;
        const lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop();
        for (const line of lines) {
          if (line === "") {
            if (message.data.length && (message.event === "view" || message.event === "message")) {
              this.deliver(JSON.parse(message.data.join("\n")));
            }
            message = { event: "message", data: [], id: null };
          } else if (!line.startsWith(":")) {
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            const data = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") message.event = data;
            else if (field === "data") message.data.push(data);
            else if (field === "id") message.id = data;
          }
        }
      }
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new StreamBroken(String(error));
    }
  }
}

class StreamUnavailable extends Error {}
class StreamBroken extends Error {}
