// The public HTTP API, as any third-party frontend calls it: JSON in and out,
// bearer tokens, problem+json errors, Idempotency-Key on moves.

export const BASE = "/v1";

/** A refusal from the API: `problem` is its problem+json body. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || `HTTP ${status}`);
    this.status = status;
    this.problem = { status, ...problem };
  }
}

/** The server could not be reached (or the answer was cut off). */
export class NetworkError extends Error {}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh key for one move (crypto.randomUUID needs a secure context; this does not). */
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * One request. Resolves to {status, body, etag}; a 304 resolves with body null.
 * Throws ApiError for 4xx/5xx answers and NetworkError when the server is unreachable.
 */
export async function request(method, path, { token, body, headers = {}, signal } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(String(error));
  }
  const etag = response.headers.get("ETag");
  if (response.status === 304) return { status: 304, body: null, etag };
  let parsed = null;
  try {
    const text = await response.text();
    parsed = text ? JSON.parse(text) : null;
  } catch (error) {
    if (error.name === "AbortError") throw error;
    if (!response.ok) parsed = null;
    else throw new NetworkError("the answer was cut off");
  }
  if (!response.ok) {
    if (response.status >= 502 && (!parsed || !parsed.code)) throw new NetworkError(`HTTP ${response.status}`);
    throw new ApiError(response.status, parsed && typeof parsed === "object" ? parsed : { detail: `HTTP ${response.status}` });
  }
  return { status: response.status, body: parsed, etag };
}

/**
 * A move (POST with an Idempotency-Key): a lost connection or a 503 is retried
 * with the same key, so the server plays it at most once. `onRetry(attempt)` is told.
 */
export async function move(path, { token, body, onRetry } = {}) {
  const key = idempotencyKey();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await request("POST", path, { token, body, headers: { "Idempotency-Key": key } });
    } catch (error) {
      // In flight elsewhere, or 503 (the server could not tell whether it applied): the same key finds out.
      const again = error instanceof ApiError && (error.problem.code === "request_in_progress" || error.status === 503);
      if (!(error instanceof NetworkError || again) || attempt >= 7) throw error;
      if (onRetry) onRetry(attempt + 1);
      await sleep(Math.min(8000, 400 * 2 ** attempt));
    }
  }
}

// -- What this server offers, read from its OpenAPI document ------------------

let documentPromise = null;

/** The server's OpenAPI document (once per page); null if it cannot be read. */
export function openapi() {
  if (!documentPromise) {
    documentPromise = request("GET", "/openapi.json")
      .then((answer) => answer.body)
      .catch(() => {
        documentPromise = null; // try again next time
        return null;
      });
  }
  return documentPromise;
}

function resolve(document, schema) {
  let current = schema;
  for (let depth = 0; current && current.$ref && depth < 10; depth += 1) {
    const path = current.$ref.replace(/^#\//, "").split("/");
    current = path.reduce((node, part) => (node ? node[part] : undefined), document);
  }
  if (current && Array.isArray(current.allOf)) {
    return current.allOf.reduce((merged, part) => {
      const piece = resolve(document, part) || {};
      return { ...merged, ...piece, properties: { ...(merged.properties || {}), ...(piece.properties || {}) } };
    }, { ...current, allOf: undefined });
  }
  return current || {};
}

/** A property schema with $ref/allOf/anyOf resolved: {type, enum, default, minimum, maximum}. */
function flatten(document, schema) {
  let node = resolve(document, schema);
  const alternatives = node.anyOf || node.oneOf;
  if (alternatives) {
    const real = alternatives.map((part) => resolve(document, part)).filter((part) => part.type !== "null");
    if (real.length === 1) node = { ...real[0], ...node, anyOf: undefined, oneOf: undefined, type: real[0].type };
  }
  const type = Array.isArray(node.type) ? node.type.find((kind) => kind !== "null") : node.type;
  return { ...node, type };
}

/** The request body's properties of an operation, flattened, or null when unknown. */
export async function bodyFields(path, method) {
  const document = await openapi();
  const operation = document && document.paths && document.paths[path] && document.paths[path][method];
  const content = operation && operation.requestBody && operation.requestBody.content;
  const media = content && (content["application/json"] || Object.values(content)[0]);
  if (!media || !media.schema) return null;
  const schema = resolve(document, media.schema);
  const fields = {};
  for (const [name, property] of Object.entries(schema.properties || {})) fields[name] = flatten(document, property);
  return fields;
}

/** Whether the server documents an operation (the stream, hints): new features are used when present. */
export async function offers(path, method = "get") {
  const document = await openapi();
  return Boolean(document && document.paths && document.paths[path] && document.paths[path][method]);
}
