// k100-generate: run a GGUF language model or a Hugging Face model directory
// on the default device (a K100_LC, or the emulator) with llama.cpp's flags: continue a prompt, chat
// (-cnv) or go on interactively (-i); the text streams to standard output.
//
//   k100-generate -m MODEL.gguf|DIR -p TEXT [-n N] [-c N] [--temp T] [--top-k K] [--top-p P] [--min-p P] [-s S] ...
//   k100-generate -m MODEL.gguf -cnv [-sys TEXT] [--chat-template NAME] < questions.txt
//   k100-generate --write-random-model FILE.gguf [--arch A] [--type T]
//
// The command itself is model::generate_main (the Python package runs the
// same one). Exit status: 0 success, 1 a model that cannot be loaded or run
// (the message names the file, key or tensor), 2 usage, 130 interrupted.
#include <optional>

#include "k100/model/device.h"
#include "k100/model/generate_command.h"
#include "k100/runtime/runtime.h"

int main(int argc, char** argv) {
  using namespace k100;
  std::optional<runtime::Runtime> rt;
  std::optional<model::RuntimeDevice> dev;
  return model::generate_main("k100-generate", std::vector<std::string>(argv + 1, argv + argc),
                              [&]() -> model::Device& {
                                rt.emplace();
                                dev.emplace(*rt);
                                return *dev;
                              });
}
