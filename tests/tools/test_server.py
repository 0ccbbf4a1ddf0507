"""k100-server over loopback, driven by curl and by Node's fetch
(server_client.mjs): health and models, completions and chat completions in
OpenAI's shapes, a streamed chat, stop strings, usage counts, concurrent
clients (queued, answered as if alone), a client that disconnects
mid-stream (its generation stops), and bad requests answered 4xx with a
JSON error naming the field."""
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

BIN = Path(os.environ["K100_TOOLS_BIN"])
HERE = Path(__file__).resolve().parent
ENV = dict(os.environ, K100_BACKEND="emu")
CONTEXT = 96


def require(tool):
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {tool} is missing")
        pytest.skip(f"{tool} is not installed")
    return path


class Server:
    def __init__(self, model):
        self.proc = subprocess.Popen([str(BIN / "k100-server"), "-m", str(model), "--port", "0", "-c", str(CONTEXT)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, text=True)
        self.log = []
        self.url = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            if "listening on http://" in line:
                self.url = line.strip().split("listening on ")[1]
                break
        assert self.url, "".join(self.log)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model = tmp_path_factory.mktemp("server") / "tiny-qwen3.gguf"
    subprocess.run([str(BIN / "k100-generate"), "--write-random-model", str(model), "--arch", "qwen3"], check=True,
                   capture_output=True)
    s = Server(model)
    yield s
    assert s.stop() == 0, "".join(s.log)
    assert "terminated, stopping" in "".join(s.log)


def curl(server, path, body=None, method=None):
    """(status, parsed JSON body) of one request made with curl."""
    args = [require("curl"), "-s", "-w", "\n%{http_code}", server.url + path]
    if body is not None:
        args += ["-H", "Content-Type: application/json", "--data-binary", body if isinstance(body, str)
                 else json.dumps(body)]
    if method:
        args += ["-X", method]
    r = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=300, check=True)
    text, status = r.stdout.rsplit("\n", 1)
    return int(status), json.loads(text)


def node(server, *args):
    r = subprocess.run([require("node"), str(HERE / "server_client.mjs"), args[0], server.url, *map(str, args[1:])],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_health_and_models(server):
    assert curl(server, "/health") == (200, {"status": "ok"})
    status, body = curl(server, "/v1/models")
    assert status == 200 and body["object"] == "list"
    (entry,) = body["data"]
    assert entry["id"] == "tiny-qwen3" and entry["object"] == "model" and entry["meta"]["n_ctx"] == CONTEXT


def test_completion_shape_usage_and_stop(server):
    request = {"prompt": "Once upon a time", "max_tokens": 12, "temperature": 0, "ignore_eos": True}
    status, body = curl(server, "/v1/completions", request)
    assert status == 200, body
    assert body["object"] == "text_completion" and body["id"].startswith("cmpl-") and body["model"] == "tiny-qwen3"
    (choice,) = body["choices"]
    assert choice["index"] == 0 and choice["finish_reason"] == "length"
    usage = body["usage"]
    assert usage["completion_tokens"] == 12 and usage["prompt_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    # the same request again gives the same text (greedy), and a stop string cuts it
    assert curl(server, "/v1/completions", request)[1]["choices"][0]["text"] == choice["text"]
    text = choice["text"]
    starts = [i for i in range(1, len(text) - 1) if all(33 <= ord(c) < 127 for c in text[i:i + 2])]
    assert starts, text
    stop = text[starts[0]:starts[0] + 2]
    status, cut = curl(server, "/v1/completions", dict(request, stop=[stop, "never appears"]))
    assert status == 200
    assert cut["choices"][0]["text"] == text[:text.index(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"
    assert cut["usage"]["completion_tokens"] < 12


def test_chat_prompt_is_the_model_template(server, tmp_path):
    messages = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Hello there"}]
    status, body = curl(server, "/v1/chat/completions", {"messages": messages, "max_tokens": 4, "temperature": 0})
    assert status == 200, body
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    assert body["choices"][0]["message"]["role"] == "assistant"
    # the prompt is what k100-generate renders for the same chat (the model's ChatML template)
    model = next(Path(a) for a in server.proc.args if a.endswith(".gguf"))
    r = subprocess.run([str(BIN / "k100-generate"), "-m", str(model), "-cnv", "-sys", "You are a test.", "-n", "0",
                        "--verbose-prompt"], input="Hello there\n", capture_output=True, text=True, env=ENV)
    (count,) = [int(line.split("=")[1]) for line in r.stderr.splitlines() if line.startswith("number of tokens")]
    assert body["usage"]["prompt_tokens"] == count


def test_streamed_chat_with_node(server):
    out = node(server, "stream-chat")
    assert out["status"] == 200 and out["type"].startswith("text/event-stream")
    assert out["role"] == "assistant" and out["done"] and out["finish_reason"] == "length"
    assert set(out["objects"]) == {"chat.completion.chunk"}
    assert out["usage"]["completion_tokens"] == 8
    # the streamed text is the text of the same request answered whole
    status, whole = curl(server, "/v1/chat/completions", {
        "messages": [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Hello there"}],
        "max_tokens": 8, "temperature": 0, "ignore_eos": True})
    assert status == 200 and whole["choices"][0]["message"]["content"] == out["content"]


def test_streamed_completion_with_curl(server):
    r = subprocess.run([require("curl"), "-sN", server.url + "/v1/completions", "-d",
                        json.dumps({"prompt": "Hi", "max_tokens": 3, "temperature": 0, "ignore_eos": True,
                                    "stream": True})], capture_output=True, text=True, errors="replace", timeout=300)
    events = [line[6:] for line in r.stdout.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "text_completion" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_concurrent_clients_are_answered_as_if_alone(server):
    together = node(server, "concurrent", 3)
    assert [r["status"] for r in together] == [200, 200, 200]
    for i, r in enumerate(together):
        status, alone = curl(server, "/v1/completions", {"prompt": f"Request number {i} says", "max_tokens": 6,
                                                          "temperature": 0, "ignore_eos": True})
        assert status == 200 and alone["choices"][0]["text"] == r["text"], i
        assert r["usage"]["completion_tokens"] == 6


def test_client_that_disconnects_stops_its_generation(server):
    before = len(server.log)
    out = node(server, "disconnect")
    assert out["seen"] >= 2 and out["aborted"]
    assert out["next_status"] == 200 and out["next_tokens"] == 2
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("client gone" in line for line in server.log[before:]):
        time.sleep(0.2)
    gone = [line for line in server.log[before:] if "client gone, stopped" in line]
    assert len(gone) == 1, "".join(server.log[before:])
    generated = int(gone[0].split(" generated")[0].rsplit(" ", 1)[1])
    assert generated < 200


@pytest.mark.parametrize("path, body, status, says, param", [
    ("/v1/completions", '{"prompt": "x", "max_tokens": 2,', 400, "not valid JSON", None),
    ("/v1/completions", "[1, 2]", 400, "must be a JSON object", None),
    ("/v1/completions", {"max_tokens": 2}, 400, "prompt: required", "prompt"),
    ("/v1/completions", {"prompt": "x", "max_tokens": "5"}, 400, "expected an integer, got a string", "max_tokens"),
    ("/v1/completions", {"prompt": "x", "temperature": -1}, 400, "temperature: -1 must be 0 (greedy) or more",
     "temperature"),
    ("/v1/completions", {"prompt": "x", "top_p": 2}, 400, "top_p: 2 must be in [0, 1]", "top_p"),
    ("/v1/completions", {"prompt": "x", "n": 2}, 400, "only n = 1", "n"),
    ("/v1/completions", {"prompt": "x", "logprobs": 3}, 400, "logprobs are not supported", "logprobs"),
    ("/v1/completions", {"prompt": "x", "stop": [1]}, 400, "stop[0]: expected a string", "stop[0]"),
    ("/v1/completions", {"prompt": "word " * 200}, 400, "the context holds 96", "prompt"),
    ("/v1/chat/completions", {"messages": []}, 400, "expected a non-empty array", "messages"),
    ("/v1/chat/completions", {"messages": [{"role": "wizard", "content": "x"}]}, 400, "\"wizard\" is not one of",
     "messages[0].role"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, 400,
     "only text parts", "messages[0].content[0]"),
    ("/v1/nothing", {}, 404, "no endpoint POST /v1/nothing", None),
])
def test_bad_requests_get_4xx_json_errors(server, path, body, status, says, param):
    got, answer = curl(server, path, body)
    assert got == status, answer
    error = answer["error"]
    assert says in error["message"], error
    assert error["type"] == "invalid_request_error" and error["param"] == param
    if "context holds" in says:
        assert error["code"] == "context_length_exceeded"


def test_wrong_method_and_malformed_json_from_node(server):
    assert curl(server, "/v1/completions", method="GET")[0] == 405
    out = node(server, "malformed")
    assert out["status"] == 400 and out["type"].startswith("application/json")
    assert "not valid JSON" in out["body"]["error"]["message"]
    assert curl(server, "/health") == (200, {"status": "ok"})  # still serving


@pytest.mark.parametrize("args, status, says", [
    (["--help"], 0, "-m, --model FILE"),
    (["--port", "70000", "-m", "x.gguf"], 2, "--port 70000: must be in [0, 65535]"),
    (["-c", "-1", "-m", "x.gguf"], 2, "-c -1: must be 0 (the model's) or more"),
    (["--port", "80"], 2, "give the model: -m MODEL.gguf"),
    (["-m", "/nonexistent/model.gguf", "--port", "0"], 1, "/nonexistent/model.gguf"),
])
def test_server_command_line(args, status, says):
    r = subprocess.run([str(BIN / "k100-server"), *args], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == status, r.stderr
    assert says in (r.stdout if status == 0 else r.stderr)
