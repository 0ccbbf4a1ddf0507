// k100-selftest: every kernel's self-test cases against its host reference,
// on the backend the runtime picks (K100_BACKEND=auto|emu|hsa). See
// include/k100/kernels/selftest.h for the flags and the output.
extern "C" int k100_selftest_main(int argc, const char* const* argv);

int main(int argc, char** argv) { return k100_selftest_main(argc, argv); }
