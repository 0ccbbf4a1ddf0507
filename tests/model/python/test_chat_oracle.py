"""A scripted chat (k100-generate -cnv, and the Python package's generate,
with a fixed standard input) on a random Qwen3 model whose GGUF carries a
ChatML tokenizer.chat_template: every turn's prompt ids equal llama.cpp's
llama_chat_apply_template (on the template read from the file by
llama_model_chat_template) tokenized by llama.cpp, on the same messages; the
assistant messages are the generated tokens' pieces as llama.cpp prints them.
"""
import sys

import pytest

from chat_oracle import check_scripted_chat
from conftest import GENERATE


@pytest.fixture(scope="module")
def chat_model(model_file):
    return model_file("qwen3", "f32")


@pytest.mark.parametrize("front", ["k100-generate", "python"])
def test_scripted_chat_prompts_equal_llama_cpp(llama, chat_model, front):
    command = [GENERATE] if front == "k100-generate" else [sys.executable, "-m", "k100lc_kernels", "generate"]
    check_scripted_chat(llama, command, chat_model, chat_model)
