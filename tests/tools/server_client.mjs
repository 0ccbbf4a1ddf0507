// A client of k100-server written as a Node user writes one (fetch, streams,
// AbortController); test_server.py runs it and checks what it prints (one
// JSON object on standard output).
//
//   node server_client.mjs stream-chat URL      a streamed chat, its events assembled
//   node server_client.mjs concurrent URL N     N completions at once
//   node server_client.mjs disconnect URL       a stream abandoned after two events, then a short request
//   node server_client.mjs malformed URL        a body that is not JSON
const [command, base, arg] = process.argv.slice(2);

async function post(path, body, options = {}) {
  return fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...options,
  });
}

// The server-sent events of a response, as they arrive: "data: ..." payloads.
async function* events(response) {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of response.body) {
    buffered += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of event.split("\n")) if (line.startsWith("data: ")) yield line.slice(6);
    }
  }
}

async function streamChat() {
  const response = await post("/v1/chat/completions", {
    messages: [{ role: "system", content: "You are a test." }, { role: "user", content: "Hello there" }],
    max_tokens: 8, temperature: 0, ignore_eos: true, stream: true, stream_options: { include_usage: true },
  });
  const out = { status: response.status, type: response.headers.get("content-type"), chunks: 0, content: "",
                role: null, finish_reason: null, usage: null, done: false, objects: [] };
  for await (const data of events(response)) {
    if (data === "[DONE]") { out.done = true; continue; }
    const chunk = JSON.parse(data);
    out.chunks += 1;
    out.objects.push(chunk.object);
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) out.role = choice.delta.role;
      if (choice.delta.content) out.content += choice.delta.content;
      if (choice.finish_reason) out.finish_reason = choice.finish_reason;
    }
  }
  return out;
}

async function concurrent(n) {
  const requests = [];
  for (let i = 0; i < n; ++i)
    requests.push(post("/v1/completions", { prompt: `Request number ${i} says`, max_tokens: 6, temperature: 0,
                                            ignore_eos: true }).then(async (r) => ({ status: r.status, body: await r.json() })));
  const results = await Promise.all(requests);
  return results.map((r) => ({ status: r.status, text: r.body.choices[0].text, usage: r.body.usage }));
}

async function disconnect() {
  const controller = new AbortController();
  const response = await post("/v1/completions", { prompt: "A long story", max_tokens: 200, temperature: 0,
                                                   ignore_eos: true, stream: true }, { signal: controller.signal });
  let seen = 0, aborted = false;
  try {
    for await (const data of events(response)) {
      if (data !== "[DONE]") seen += 1;
      if (seen === 2) controller.abort();
    }
  } catch (e) {
    aborted = e.name === "AbortError";
  }
  const started = Date.now();
  const after = await post("/v1/completions", { prompt: "Next", max_tokens: 2, temperature: 0, ignore_eos: true });
  const body = await after.json();
  return { seen, aborted, next_status: after.status, next_tokens: body.usage.completion_tokens,
           next_ms: Date.now() - started };
}

async function malformed() {
  const response = await post("/v1/chat/completions", '{"messages": [{"role": "user", "content": "hi"}');
  return { status: response.status, type: response.headers.get("content-type"), body: await response.json() };
}

const run = { "stream-chat": streamChat, concurrent: () => concurrent(Number(arg)), disconnect, malformed }[command];
if (!run) {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
console.log(JSON.stringify(await run()));
