"""k100-generate and python3 -m k100lc_kernels generate as a llama.cpp user
types them: llama.cpp's flags, values refused with the rule they break,
generated text alone on standard output (timings and ids on standard error),
warnings for a context too short, chat errors that name the way out,
interactive turns, and Ctrl-C stopping at the next token with the timings
printed."""
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(os.environ["K100_TOOLS_BIN"])
SOURCE = Path(os.environ["K100_SOURCE_DIR"])
ENV = dict(os.environ, K100_BACKEND="emu", PYTHONPATH=str(SOURCE / "python"))
GENERATE = [str(BIN / "k100-generate")]
PYTHON_GENERATE = [sys.executable, "-m", "k100lc_kernels", "generate"]


def run(command, *args, stdin=b""):
    p = subprocess.run(command + [str(a) for a in args], input=stdin, capture_output=True, env=ENV, timeout=600)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def ids_of(err):
    return [[int(x) for x in line[4:].split()] for line in err.splitlines() if line.startswith("ids:")]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    for arch in ("qwen3", "llama"):
        rc, out, err = run(GENERATE, "--write-random-model", d / f"{arch}.gguf", "--arch", arch)
        assert rc == 0, err
    return d


@pytest.mark.parametrize("args, message", [
    (["--top-p", "2"], "--top-p 2: must be in [0, 1]"),
    (["--temp", "-1"], "--temp -1: must be 0 (greedy) or more"),
    (["--min-p", "1.5"], "--min-p 1.5: must be in [0, 1]"),
    (["--top-k", "-3"], "--top-k -3: must be 0 (all tokens) or more"),
    (["--repeat-penalty", "0"], "--repeat-penalty 0: must be more than 0 (1 is off)"),
    (["--repeat-last-n", "-2"], "--repeat-last-n -2: must be -1 (the whole history), 0 (off) or more"),
    (["--presence-penalty", "inf"], "--presence-penalty inf: must be a finite number"),
    (["-n", "-2"], "-n -2: must be -1 (no limit), 0 or more"),
    (["-c", "-5"], "-c -5: must be 0 (the model's) or more"),
    (["--temp", "warm"], "--temp: 'warm' is not a number"),
    (["--cache-type-k", "q8_0"], "--cache-type-k q8_0: the KV cache types are f32 and f16"),
    (["-ctk", "f16", "-ctv", "f32"], "the KV cache has one type for K and V"),
    (["-p", "a", "-f", "x.txt"], "-f: give one prompt (-p, -f or --tokens)"),
    (["-p", "a"], "give the model: -m MODEL.gguf"),
    (["-m", "x.gguf"], "give a prompt (-p TEXT, -f FILE or --tokens ID,...), or -cnv for a chat"),
    (["-m", "x.gguf", "-cnv", "--tokens", "1,2"], "--tokens: a chat (-cnv, -sys) is rendered from text messages"),
])
@pytest.mark.parametrize("command", [GENERATE, PYTHON_GENERATE], ids=["tool", "python"])
def test_values_are_checked_against_their_rule(command, args, message):
    rc, out, err = run(command, *args)
    assert rc == 2, (out, err)
    assert message in err, err
    assert out == ""


def test_help_lists_llama_cpp_flags_and_model_flag_is_known():
    rc, out, err = run(GENERATE, "--help")
    assert rc == 0 and err == ""
    for flag in ("-m, --model", "-p, --prompt", "-f, --file", "-n, --n-predict", "-c, --ctx-size", "-s, --seed",
                 "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--repeat-last-n",
                 "--presence-penalty", "--frequency-penalty", "-r, --reverse-prompt", "--ignore-eos",
                 "-sys, --system-prompt", "-cnv, --conversation", "-i, --interactive", "--chat-template",
                 "-ctk, --cache-type-k", "-ctv, --cache-type-v", "--no-display-prompt"):
        assert flag in out, flag
    rc, pout, _ = run(PYTHON_GENERATE, "--help")
    assert rc == 0 and "--chat-template" in pout and "-cnv, --conversation" in pout


def test_text_alone_on_stdout_timings_and_ids_on_stderr(models):
    m = models / "qwen3.gguf"
    rc, out, err = run(GENERATE, "-m", m, "-p", "Hello world", "-n", "6", "--temp", "0", "--ignore-eos", "--ids")
    assert rc == 0, err
    assert out.startswith("Hello world") and out.endswith("\n")
    assert "k100_perf" not in out and "ids:" not in out and "loading" not in out
    for what in ("load time", "prompt eval time", "eval time", "sampling time", "total time"):
        assert f"k100_perf: {what:>16} = " in err, what
    (ids,) = ids_of(err)
    assert len(ids) == 6
    rc, quiet, err2 = run(GENERATE, "-m", m, "-p", "Hello world", "-n", "6", "--temp", "0", "--ignore-eos", "--ids",
                          "--no-display-prompt")
    assert rc == 0 and ids_of(err2) == [ids]
    assert quiet == out[len("Hello world"):]
    # the same prompt from a file, and the Python package's generate: the same ids
    (models / "prompt.txt").write_text("Hello world")
    rc, _, err3 = run(PYTHON_GENERATE, "-m", m, "-f", models / "prompt.txt", "-n", "6", "--temp", "0",
                      "--ignore-eos", "--ids")
    assert rc == 0 and ids_of(err3) == [ids], err3


def test_context_limits_are_said(models):
    m = models / "qwen3.gguf"
    rc, out, err = run(GENERATE, "-m", m, "-p", "Hi", "-n", "1000", "-c", "12", "--temp", "0", "--ignore-eos", "--ids",
                       "--verbose-prompt")
    assert rc == 0, err
    assert "warning: -n 1000: the context holds 12 tokens and the prompt takes" in err
    (ids,) = ids_of(err)
    (prompt,) = [int(line.split("=")[1]) for line in err.splitlines() if line.startswith("number of tokens in prompt")]
    assert len(ids) == 12 - prompt + 1  # the last token chosen needs no room
    assert "the context of 12 tokens is full" in err
    # -n -1: until the context is full
    rc, out, err = run(GENERATE, "-m", m, "--tokens", "300,301", "-n", "-1", "-c", "10", "--temp", "0",
                       "--ignore-eos", "--ids")
    assert rc == 0, err
    assert [len(i) for i in ids_of(err)] == [10 - 2 + 1]


def test_reverse_prompt_stops_and_is_printed(models):
    m = models / "qwen3.gguf"
    command = GENERATE + [str(a) for a in ("-m", m, "-p", "Once", "-n", "16", "--temp", "0", "--ignore-eos",
                                           "--no-display-prompt")]
    full = subprocess.run(command, capture_output=True, env=ENV, check=True).stdout[:-1]
    # a stop string of two printable ASCII bytes from the middle of the text
    starts = [i for i in range(3, len(full) - 1) if all(32 < b < 127 for b in full[i:i + 2])]
    assert starts, full
    stop = full[starts[0]:starts[0] + 2]
    out = subprocess.run(command + ["-r", stop.decode()], capture_output=True, env=ENV, check=True).stdout
    assert out == full[:full.index(stop) + len(stop)] + b"\n"
    assert len(out) < len(full)


def test_chat_template_errors_name_the_way_out(models):
    rc, out, err = run(GENERATE, "-m", models / "llama.gguf", "-cnv", "-n", "2", stdin=b"hi\n")
    assert rc == 1
    assert "has no tokenizer.chat_template; give --chat-template NAME" in err and "chatml" in err
    rc, out, err = run(GENERATE, "-m", models / "qwen3.gguf", "-cnv", "--chat-template", "chatlm", stdin=b"hi\n")
    assert rc == 1 and "unknown chat template 'chatlm'; did you mean 'chatml'?" in err
    # a named template serves a model without one
    rc, out, err = run(GENERATE, "-m", models / "llama.gguf", "-cnv", "--chat-template", "llama2", "-n", "2",
                       "--temp", "0", "--ids", stdin=b"hi\nand again\n")
    assert rc == 0, err
    assert "chat template llama2" in err and len(ids_of(err)) == 2


def test_interactive_appends_lines_and_goes_on(models):
    m = models / "qwen3.gguf"
    rc, out, err = run(GENERATE, "-m", m, "-p", "Hello", "-i", "-n", "3", "--temp", "0", "--ignore-eos", "--ids",
                       "--verbose-prompt", stdin=b"more text\n")
    assert rc == 0, err
    prompts = [[int(x) for x in line[11:].split()] for line in err.splitlines() if line.startswith("prompt ids:")]
    answers = ids_of(err)
    assert len(prompts) == 2 and len(answers) == 2
    assert prompts[1][:len(prompts[0]) + 3] == prompts[0] + answers[0]  # the history, then the line read
    assert "prompt tokens reused from the KV cache" in err


def test_f16_cache_that_cannot_be_used_is_said(models, tmp_path):
    # heads of 64 have an f16 cache path: nothing to say
    rc, out, err = run(GENERATE, "-m", models / "qwen3.gguf", "-p", "Hi", "-n", "2", "-ctk", "f16", "-ctv", "f16")
    assert rc == 0, err
    assert "no f16 KV cache path" not in err
    # heads of 32 have none: the cache stays f32, and the run says so
    sys.path.insert(0, str(SOURCE / "tests" / "model" / "python"))
    import gguf_write
    from reference_model import Gguf
    f = Gguf(models / "qwen3.gguf")
    vocab = [(k, v) for k, v in f.raw_kv.items() if k.startswith("tokenizer.")]
    spec = gguf_write.ModelSpec("qwen3", n_layer=1, n_embd=128, n_head=4, n_kv=2, head_dim=32, n_ff=64)
    kvs, tensors = gguf_write.random_model(spec, vocab, len(f.meta["tokenizer.ggml.tokens"]))
    gguf_write.write(tmp_path / "head32.gguf", kvs, tensors)
    rc, out, err = run(GENERATE, "-m", tmp_path / "head32.gguf", "-p", "Hi", "-n", "2", "-ctk", "f16", "-ctv", "f16")
    assert rc == 0, err
    assert "(head size 32, 2 query heads per KV head) has no f16 KV cache path; the cache is f32" in err


@pytest.mark.parametrize("command", [GENERATE, PYTHON_GENERATE], ids=["tool", "python"])
def test_ctrl_c_stops_at_the_next_token_with_timings(models, command):
    p = subprocess.Popen(command + ["-m", str(models / "qwen3.gguf"), "-p", "Hi", "-n", "-1", "-c", "256",
                                    "--ignore-eos", "--no-display-prompt"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        got = b""
        deadline = time.monotonic() + 300
        while len(got) < 2 and time.monotonic() < deadline:  # generation has started
            if select.select([p.stdout], [], [], 1.0)[0]:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    break
                got += chunk
        assert len(got) >= 2, "no text was generated"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    err = err.decode(errors="replace")
    assert p.returncode == 130, err
    assert "interrupted" in err and "k100_perf:       total time" in err
    assert "context of 256 tokens is full" not in err  # it stopped long before
