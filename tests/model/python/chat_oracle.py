"""llama.cpp's side of a chat (its chat template and tokenizer on a model
file, loaded vocab_only) and a scripted chat run through a generate front
end, for the chat tests of GGUF files and Hugging Face directories."""
import ctypes
import subprocess


class ChatMessage(ctypes.Structure):  # struct llama_chat_message
    _fields_ = [("role", ctypes.c_char_p), ("content", ctypes.c_char_p)]


class ChatOracle:
    """The model's vocabulary and template in libllama (vocab_only)."""

    def __init__(self, llama, path):
        L = self.L = llama.lib
        L.llama_model_chat_template.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.llama_model_chat_template.restype = ctypes.c_char_p
        L.llama_chat_apply_template.argtypes = [ctypes.c_char_p, ctypes.POINTER(ChatMessage), ctypes.c_size_t,
                                                ctypes.c_bool, ctypes.c_char_p, ctypes.c_int32]
        L.llama_chat_apply_template.restype = ctypes.c_int32
        L.llama_token_to_piece.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int32,
                                           ctypes.c_int32, ctypes.c_bool]
        L.llama_token_to_piece.restype = ctypes.c_int32
        L.llama_vocab_is_eog.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        L.llama_vocab_is_eog.restype = ctypes.c_bool
        mp = L.llama_model_default_params()
        mp.vocab_only = True
        self.model = L.llama_model_load_from_file(str(path).encode(), mp)
        assert self.model, "libllama refused " + str(path)
        self.vocab = L.llama_model_get_vocab(self.model)
        self.template = L.llama_model_chat_template(self.model, None)
        assert self.template and b"<|im_start|>" in self.template

    def close(self):
        self.L.llama_model_free(self.model)

    def apply(self, messages, add_assistant=True):
        arr = (ChatMessage * len(messages))(*[ChatMessage(r, c) for r, c in messages])
        buf = ctypes.create_string_buffer(65536)
        n = self.L.llama_chat_apply_template(self.template, arr, len(messages), add_assistant, buf, len(buf))
        assert 0 < n <= len(buf)
        return buf.raw[:n]

    def tokenize(self, text: bytes):
        buf = (ctypes.c_int32 * 8192)()
        n = self.L.llama_tokenize(self.vocab, text, len(text), buf, 8192, True, True)  # add and parse special
        assert n >= 0
        return list(buf[:n])

    def piece(self, token):
        buf = ctypes.create_string_buffer(256)
        n = self.L.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
        assert n >= 0
        return buf.raw[:n]

    def is_eog(self, token):
        return self.L.llama_vocab_is_eog(self.vocab, token)


def lines_with(prefix, text):
    return [[int(x) for x in line[len(prefix):].split()] for line in text.splitlines() if line.startswith(prefix)]


SYSTEM = b"You are a test."
LINES = [b"Hello there", b"What is two plus two?", b"", b"Bye now \xc3\xa9t\xc3\xa9"]


def run_chat(command, path):
    stdin = b"\n".join(LINES) + b"\n"
    r = subprocess.run(command + ["-m", str(path), "-cnv", "-sys", SYSTEM.decode(), "-n", "6", "--temp", "0",
                                  "--ids", "--verbose-prompt"], input=stdin, capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    err = r.stderr.decode(errors="replace")
    return r.stdout, lines_with("prompt ids:", err), lines_with("ids:", err), err


def check_scripted_chat(llama, command, model, oracle_model):
    """Runs the scripted chat on `model` with `command` (a generate front end) and checks every turn's prompt
    ids against llama.cpp's template and tokenizer on `oracle_model` (a GGUF file with the same vocabulary and
    template), the assistant messages being the generated tokens' pieces; standard output holds the answers
    alone."""
    stdout, prompts, answers, err = run_chat(command, model)
    users = [u for u in LINES if u]  # an empty line asks again
    assert len(prompts) == len(users) == len(answers), err
    assert "chat template chatml" in err
    oracle = ChatOracle(llama, oracle_model)
    try:
        messages, replies = [(b"system", SYSTEM)], []
        for user, got, answer in zip(users, prompts, answers):
            messages.append((b"user", user))
            want = oracle.tokenize(oracle.apply(messages))
            assert got == want, f"turn {len(replies) + 1}: {got} != llama.cpp {want}"
            reply = b"".join(oracle.piece(t) for t in answer if not oracle.is_eog(t))
            replies.append(reply)
            messages.append((b"assistant", reply))
        assert stdout == b"".join(r + b"\n" for r in replies)
    finally:
        oracle.close()
